"""Build the live federation's programs from Go modules into a cache outside the repository.

``python -m tests.e2e.build`` builds kube-apiserver, kubectl and kube-controller-manager from the
``k8s.io/kubernetes`` module and Karmada's controller-manager, scheduler and webhook from the
``github.com/karmada-io/karmada`` module, each from the small Go module under ``tests/e2e/gomod/``
that pins the version. Binaries land in ``$FEDGATE_E2E_CACHE`` (default ``~/.cache/fedgate-e2e``)
under a directory named by module version, so a cached binary is reused and a version bump builds
afresh. Exit 0 when every binary is present, 2 when Go is missing, 1 when a build failed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BUILD = Path(__file__).resolve().parent / "gomod"


@dataclass(frozen=True)
class Program:
    name: str  # the binary's file name in the cache
    module_dir: str  # folder under tests/e2e/build holding the go.mod
    module: str  # the module whose version keys the cache
    package: str


PROGRAMS = (
    Program("kube-apiserver", "kube", "k8s.io/kubernetes", "k8s.io/kubernetes/cmd/kube-apiserver"),
    Program("kubectl", "kube", "k8s.io/kubernetes", "k8s.io/kubernetes/cmd/kubectl"),
    Program(
        "kube-controller-manager",
        "kube",
        "k8s.io/kubernetes",
        "k8s.io/kubernetes/cmd/kube-controller-manager",
    ),
    Program(
        "karmada-controller-manager",
        "karmada",
        "github.com/karmada-io/karmada",
        "github.com/karmada-io/karmada/cmd/controller-manager",
    ),
    Program(
        "karmada-scheduler",
        "karmada",
        "github.com/karmada-io/karmada",
        "github.com/karmada-io/karmada/cmd/scheduler",
    ),
    Program(
        "karmada-aggregated-apiserver",
        "karmada",
        "github.com/karmada-io/karmada",
        "github.com/karmada-io/karmada/cmd/aggregated-apiserver",
    ),
    Program(
        "karmada-webhook",
        "karmada",
        "github.com/karmada-io/karmada",
        "github.com/karmada-io/karmada/cmd/webhook",
    ),
)


def cache_dir() -> Path:
    configured = os.environ.get("FEDGATE_E2E_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "fedgate-e2e"


def go_binary() -> str | None:
    found = shutil.which("go")
    if found:
        return found
    fallback = Path("/usr/local/go/bin/go")
    return str(fallback) if fallback.is_file() else None


def module_version(module_dir: str, module: str) -> str:
    text = (BUILD / module_dir / "go.mod").read_text()
    match = re.search(rf"^\s*(?:require\s+)?{re.escape(module)}\s+(v\S+)", text, re.MULTILINE)
    if match is None:
        raise SystemExit(f"tests/e2e/gomod/{module_dir}/go.mod does not require {module}")
    return match.group(1)


def binary_path(program: Program) -> Path:
    version = module_version(program.module_dir, program.module)
    return cache_dir() / f"{program.module.rsplit('/', 1)[-1]}-{version}" / program.name


def binaries() -> dict[str, Path]:
    """Each program's cached binary path (present or not), by name."""
    return {program.name: binary_path(program) for program in PROGRAMS}


def _ldflags(program: Program) -> str:
    if program.module != "k8s.io/kubernetes":
        return "-s -w"
    version = module_version(program.module_dir, program.module)
    major, minor = version.lstrip("v").split(".")[:2]
    pkg = "k8s.io/component-base/version"
    return (
        f"-s -w -X {pkg}.gitVersion={version} -X {pkg}.gitMajor={major} "
        f"-X {pkg}.gitMinor={minor} -X {pkg}.gitTreeState=clean"
    )


def build(go: str, program: Program) -> bool:
    target = binary_path(program)
    if target.is_file():
        print(f"[e2e build] {program.name}: cached at {target}", flush=True)
        return True
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{program.name}.partial")
    print(f"[e2e build] {program.name}: go build {program.package} ...", flush=True)
    started = time.monotonic()
    # tests/oracles/build.py builds with the same CGO_ENABLED and -trimpath: the build cache
    # keys packages by them, so what the oracles compiled in `make test` is reused here.
    env = {**os.environ, "CGO_ENABLED": "0", "GOFLAGS": "-mod=mod -buildvcs=false"}
    result = subprocess.run(
        [
            go,
            "build",
            "-trimpath",
            "-ldflags",
            _ldflags(program),
            "-o",
            str(partial),
            program.package,
        ],
        cwd=BUILD / program.module_dir,
        env=env,
        check=False,
    )
    if result.returncode != 0:
        partial.unlink(missing_ok=True)
        print(f"[e2e build] {program.name}: FAILED (go build exit {result.returncode})", flush=True)
        return False
    partial.replace(target)
    print(f"[e2e build] {program.name}: built in {time.monotonic() - started:.0f} s", flush=True)
    return True


def copy_karmada_artifacts(go: str) -> bool:
    """Karmada's CRDs (the chart's kustomization) and webhook configuration, from its module,
    beside its binaries: what the harness installs, at the version it runs."""
    target = binaries()["karmada-controller-manager"].parent / "artifacts"
    if (target / "webhook-configuration.yaml").is_file():
        return True
    result = subprocess.run(
        [go, "list", "-mod=mod", "-m", "-f", "{{.Dir}}", "github.com/karmada-io/karmada"],
        cwd=BUILD / "karmada",
        capture_output=True,
        text=True,
        check=False,
    )
    source = Path(result.stdout.strip())
    if result.returncode != 0 or not source.is_dir():
        print(f"[e2e build] Karmada's module not found: {result.stderr.strip()}", flush=True)
        return False
    partial = target.with_name(".artifacts.partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(source / "charts/karmada/_crds", partial / "crds")
    shutil.copy(source / "artifacts/deploy/webhook-configuration.yaml", partial)
    for path in partial.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)  # the module cache is read-only
    partial.chmod(0o755)
    partial.rename(target)
    print(f"[e2e build] Karmada's CRDs and webhook configuration copied to {target}", flush=True)
    return True


def main() -> int:
    go = go_binary()
    if go is None:
        print("[e2e build] Go is not installed: nothing built", flush=True)
        return 2
    started = time.monotonic()
    ok = [build(go, program) for program in PROGRAMS]
    ok.append(copy_karmada_artifacts(go))
    print(f"[e2e build] done in {time.monotonic() - started:.0f} s", flush=True)
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())

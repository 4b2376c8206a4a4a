"""``fedgate init [DIR]``: scaffold a platform repository that compiles, checks and commits."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
from pathlib import Path

from compiler.output import Output, plural
from compiler.policies import BUNDLED, repository_root
from webhook.base.errors import FedgateError

NAME = "init"
HELP = "scaffold a platform repository: policies/, apps/, the pre-commit hook, Argo CD"
DESCRIPTION = """\
Write a platform repository's starting point into DIR (default: here): policies/, a copy of
the example bundle with every file commented (clusters, tenants, writers, Argo CD, rules and
their tests: edit them to describe your federation); apps/hello.yaml, one app spec; and
.pre-commit-config.yaml, which runs `fedgate check` on every commit. When DIR is inside a git
work tree and the pre-commit framework is on PATH, the hook is installed too. Nothing that
exists is overwritten: a repository that already has app specs keeps them (no hello.yaml is
added) and one with its own .pre-commit-config.yaml keeps it (init prints the hook to add);
a policies/ that exists already stops init, since half a bundle from two places is no bundle.

examples:
  git init platform && cd platform && fedgate init
  fedgate compile && git add -A && git commit -m "a fedgate platform repository"
"""
USES_BUNDLE = False
ARGOCD = "policies/argocd.yaml"
INDEX = "index.json"
HOOKS_FILE = ".pre-commit-config.yaml"

HOOKS = """\
# The pre-commit framework (https://pre-commit.com) runs fedgate before every commit:
# `pip install pre-commit && pre-commit install` once per clone. fedgate must be on PATH
# (language: system runs the fedgate you installed). `fedgate check` refuses a commit whose
# specs are invalid, whose rendered/ tree is stale, or whose changes the admission webhook
# would deny. To move things: args: [--apps, DIR, --out, DIR, --policies, DIR].
repos:
  - repo: local
    hooks:
      - id: fedgate-check
        name: fedgate check
        entry: fedgate check
        language: system
        types_or: [yaml, json]   # Argo CD syncs .json manifests too
        always_run: true         # a commit that only deletes files is checked too
        require_serial: true
"""

APP = """\
# An app spec: `fedgate compile` renders it into the Karmada manifests under rendered/
# (Deployment, PropagationPolicy) and the tenant's Argo CD Application under rendered/argocd/.
# Every field is described in fedgate's docs/app-spec.md.
apiVersion: fedgate.dev/v1alpha1
kind: App
metadata:
  name: hello                      # names the Deployment, its policies and its container
  namespace: platform-demo         # a namespace of the tenant (policies/tenants.yaml)
spec:
  tenant: team-a
  image: registry.example.com/platform/hello:1.0   # from one of the tenant's registries
  replicas: 4
  ports: [8080]
  resources:                       # requests count against the tenant's quota
    requests: {cpu: 100m, memory: 128Mi}
    limits: {memory: 256Mi}
  readinessProbe: {httpGet: {path: /ready, port: 8080}}
  env: {GREETING: "hello"}         # strings only: quote numbers and booleans
  placement:
    clusters: [cluster-a, cluster-b]   # clusters of the tenant (policies/clusters.yaml)
    replicas: Divided              # 4 replicas split over the clusters; Duplicated: 4 in each
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "directory",
        nargs="?",
        type=Path,
        default=Path(),
        metavar="DIR",
        help="where to write (default: the working directory; created when missing)",
    )
    parser.add_argument("--no-hook", action="store_true", help="do not run `pre-commit install`")


def scaffold() -> dict[str, bytes]:
    """Relative path -> content of every file init writes."""
    files = {
        f"policies/{p.relative_to(BUNDLED).as_posix()}": p.read_bytes()
        for p in sorted(BUNDLED.rglob("*.yaml"))
    }
    # the rules' tests about overrides, autoscalers and policies judge writes against the
    # example tree as its index knows it: without it, `fedgate test` fails a fresh repository
    files[f"policies/{INDEX}"] = (BUNDLED / INDEX).read_bytes()
    files["apps/hello.yaml"] = APP.encode()
    files[HOOKS_FILE] = HOOKS.encode()
    return files


def run(args: argparse.Namespace, out: Output) -> int:
    target: Path = args.directory
    if target.exists() and not target.is_dir():
        raise FedgateError(f"{target} is a file; give a directory to initialise")
    root = repository_root(target)
    if root is not None and root.resolve() != target.resolve() and (root / "policies").is_dir():
        raise FedgateError(
            f"{target} is inside the platform repository {root} (it has policies/); run "
            "`fedgate init` at the root of a new repository, or give --policies, --apps and "
            "--out to the commands to use another layout"
        )
    files = scaffold()
    kept = _keep_what_exists(target, files)
    origin = _git(target, "remote", "get-url", "origin")
    if origin:  # Argo CD syncs this repository: say so where it looks
        files[ARGOCD] = re.sub(
            rb"(?m)^(  repoURL: )\S+", lambda m: m[1] + origin.encode(), files[ARGOCD], count=1
        )
    for path, data in files.items():
        (target / path).parent.mkdir(parents=True, exist_ok=True)
        (target / path).write_bytes(data)
    hook = "skipped (--no-hook)" if args.no_hook else _install_hook(target)
    if out.format == "json":
        out.json(
            {
                "ok": True,
                "directory": str(target),
                "written": list(files),
                "kept": kept,
                "hook": hook,
            }
        )
        return 0
    out.line(f"wrote {plural(len(files), 'file')} in {target}/:")
    out.line("  policies/                the example bundle: describe your clusters, tenants,")
    out.line("                           writers and Argo CD (argocd.yaml: repoURL) there;")
    out.line("                           index.json is the example tree the rules' tests use")
    if "apps/hello.yaml" in files:
        out.line("  apps/hello.yaml          one app spec")
    if HOOKS_FILE in files:
        out.line("  .pre-commit-config.yaml  runs `fedgate check` before every commit")
    for path, why in kept.items():
        out.line(f"kept {path}: {why}")
    if HOOKS_FILE in kept:
        out.line("add this to its repos: list to run fedgate before every commit:")
        for line in HOOKS.split("repos:\n", 1)[1].splitlines():
            out.line(line)
    out.line(f"pre-commit hook: {hook}")
    go = "" if target == Path() else f"cd {target} && "
    out.line(f'next: {go}fedgate compile && git add -A && git commit -m "fedgate platform"')
    return 0


def _keep_what_exists(target: Path, files: dict[str, bytes]) -> dict[str, str]:
    """Leave the repository's own files alone: drop from ``files`` what would overwrite one (or
    add an example app beside the repository's own), and say why for each. A policies/ that
    already exists is refused whole: init cannot make a bundle of half of one."""
    policies = sorted(p for p in files if p.startswith("policies/") and (target / p).exists())
    if policies:
        listed = ", ".join(str(target / p) for p in policies[:5])
        more = f" and {len(policies) - 5} more" if len(policies) > 5 else ""
        raise FedgateError(
            f"{listed}{more} already exist; init writes a whole policy bundle or none and "
            "overwrites nothing (move policies/ away to start again, or edit it in place)"
        )
    kept: dict[str, str] = {}
    apps = target / "apps"
    own_specs = apps.is_dir() and any(
        p.suffix in {".yaml", ".yml"} for p in apps.rglob("*") if p.is_file()
    )
    if own_specs:
        del files["apps/hello.yaml"]
        kept["apps/"] = "it has app specs already, so no example app was added"
    if (target / HOOKS_FILE).exists():
        del files[HOOKS_FILE]
        kept[HOOKS_FILE] = "it exists, and init overwrites nothing"
    return kept


def _install_hook(target: Path) -> str:
    """Run `pre-commit install` where that can work; say what happened either way."""
    framework = shutil.which("pre-commit")
    if framework is None:
        return "not installed: `pip install pre-commit && pre-commit install` to run it"
    if _git(target, "rev-parse", "--is-inside-work-tree") != "true":
        return "not installed: not a git repository yet (`git init`, then `pre-commit install`)"
    result = subprocess.run(
        [framework, "install"],
        cwd=target,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if result.returncode != 0:
        reason = (result.stderr or result.stdout).strip().splitlines()
        return f"not installed: pre-commit install failed: {reason[-1] if reason else '?'}"
    return "installed (pre-commit install)"


def _git(target: Path, *args: str) -> str | None:
    """What ``git ARGS`` prints in ``target``; None when it fails or git is missing."""
    if not target.is_dir():
        return None
    try:
        result = subprocess.run(
            ["git", *args], cwd=target, capture_output=True, text=True, timeout=30, check=False
        )
    except OSError:
        return None
    return result.stdout.strip() if result.returncode == 0 else None

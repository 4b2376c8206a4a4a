"""The compile cache: reused only when nothing it depends on changed, same bytes either way."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.compile import incremental, statmemo
from compiler.spec.load import find_spec_files
from tests.conftest import EXAMPLES, POLICIES, ROOT
from webhook.base.errors import BundleError, SpecError
from webhook.engine.cel.celexpr import CelExprBackend


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES / "apps", tmp_path / "apps")
    shutil.copytree(POLICIES, tmp_path / "policies")
    return tmp_path


def _compile(
    repo: Path, calls: list[str], monkeypatch: pytest.MonkeyPatch, backend: str | None = None
) -> dict[str, bytes]:
    real = incremental.compile_file

    def counting(apps, bundle):  # type: ignore[no-untyped-def]
        calls.append(apps[0].origin.file)
        return real(apps, bundle)

    monkeypatch.setattr(incremental, "compile_file", counting)
    files = find_spec_files([repo / "apps"])
    compiled, _ = incremental.compile_files(
        files, repo / "policies", cache=repo / "cache.json", backend=backend
    )
    return dict(compiled.files)


def test_unchanged_files_come_from_the_cache(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first: list[str] = []
    cold = _compile(repo, first, monkeypatch)
    assert len(first) == len(list((EXAMPLES / "apps").glob("*.yaml")))
    second: list[str] = []
    assert _compile(repo, second, monkeypatch) == cold
    assert second == []
    spec = repo / "apps" / "status-page.yaml"
    spec.write_text(spec.read_text().replace("replicas: 2", "replicas: 3"))
    third: list[str] = []
    changed = _compile(repo, third, monkeypatch)
    assert third == [str(spec)]
    assert changed != cold
    assert b"replicas: 3" in changed["platform-demo/status-page/deployment.yaml"]


def test_a_bundle_change_recompiles_everything(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _compile(repo, [], monkeypatch)
    binding = repo / "policies" / "rules" / "image-tag" / "binding.yaml"
    binding.write_text(binding.read_text().replace("action: deny", "action: warn"))
    calls: list[str] = []
    _compile(repo, calls, monkeypatch)
    assert len(calls) == len(list((EXAMPLES / "apps").glob("*.yaml")))


def test_another_cel_backend_recompiles_everything(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A verdict is the backend's: cel-python's run must not reuse cel-expr's cached one."""
    _compile(repo, [], monkeypatch, backend="cel-expr")
    calls: list[str] = []
    _compile(repo, calls, monkeypatch, backend="cel-python")
    assert len(calls) == len(list((EXAMPLES / "apps").glob("*.yaml")))
    again: list[str] = []
    _compile(repo, again, monkeypatch, backend="cel-python")
    assert again == []


def test_a_broken_cache_is_ignored(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cold = _compile(repo, [], monkeypatch)
    (repo / "cache.json").write_text("{not json")
    calls: list[str] = []
    assert _compile(repo, calls, monkeypatch) == cold
    assert len(calls) == len(list((EXAMPLES / "apps").glob("*.yaml")))


def _memo(repo: Path) -> set[str]:
    data = orjson.loads((repo / "cache.json").read_bytes())
    return set(data["cel"]["homogeneous"])


def _rule_with(repo: Path, expression: str) -> None:
    folder = repo / "policies" / "rules" / "literals"
    folder.mkdir()
    (folder / "rule.yaml").write_text(
        "id: literals\ndescription: a list literal\nvalidations:\n"
        f"  - expression: {json.dumps(expression)}\n    message: not one of them\n"
    )
    (folder / "binding.yaml").write_text(
        (repo / "policies" / "rules" / "image-tag" / "binding.yaml").read_text()
    )


def test_the_literal_check_is_remembered_across_bundle_changes_never_its_refusals(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The homogeneous-literal check (a lark parse per expression) runs once per expression
    for this code and engine; a mixed literal is refused whatever the memo holds."""
    fine = "object.kind in ['Deployment', 'StatefulSet']"
    _rule_with(repo, fine)
    _compile(repo, [], monkeypatch)
    digest = hashlib.sha256(fine.encode()).hexdigest()
    assert digest in _memo(repo)
    checked: list[str] = []
    real = CelExprBackend._first_mixed_literal

    def counting(self: CelExprBackend, expression: str) -> str | None:
        checked.append(expression)
        return real(self, expression)

    monkeypatch.setattr(CelExprBackend, "_first_mixed_literal", counting)
    _compile(repo, [], monkeypatch)
    assert checked == []  # every expression of the bundle was checked before
    shutil.rmtree(repo / "policies" / "rules" / "literals")
    _rule_with(repo, "object.kind in ['Deployment', 1]")
    with pytest.raises(BundleError, match="mixed types in one literal"):
        _compile(repo, [], monkeypatch)
    assert checked == ["object.kind in ['Deployment', 1]"]
    assert digest in _memo(repo)  # a bundle change keeps what the engine knows


def test_another_engine_release_forgets_the_literal_memo(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _compile(repo, [], monkeypatch)
    assert _memo(repo)
    monkeypatch.setattr(incremental, "engine_fingerprint", lambda name: f"{name} upgraded")
    checked: list[str] = []
    real = CelExprBackend._first_mixed_literal

    def counting(self: CelExprBackend, expression: str) -> str | None:
        checked.append(expression)
        return real(self, expression)

    monkeypatch.setattr(CelExprBackend, "_first_mixed_literal", counting)
    calls: list[str] = []
    _compile(repo, calls, monkeypatch)
    assert checked and calls  # the literal checks and every spec ran again


def test_engine_fingerprint_follows_the_installed_files(tmp_path: Path) -> None:
    assert incremental.engine_fingerprint("cel-expr") == incremental.engine_fingerprint("cel-expr")
    assert incremental.engine_fingerprint("cel-expr") != incremental.engine_fingerprint(
        "cel-python"
    )


@pytest.mark.slow
def test_a_warm_compile_neither_parses_cel_nor_imports_the_parser(repo: Path) -> None:
    """What the memo and the lazy proofs are for: the second run of a command over the same
    bundle loads no lark (~0.1 s of a warm ``fedgate check``). Each run in a fresh process."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from compiler.compile import incremental\n"
        "from compiler.spec.load import find_spec_files\n"
        "repo = Path(sys.argv[1])\n"
        "incremental.compile_files(find_spec_files([repo / 'apps']), repo / 'policies',"
        " cache=repo / 'cache.json')\n"
        "print('lark' in sys.modules)\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", script, str(repo)],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
            cwd=ROOT,
        ).stdout.strip()
        for _ in range(2)
    ]
    assert runs == ["True", "False"]


EDITS = {
    "more replicas": lambda text: text.replace("replicas: 2", "replicas: 3", 1),
    "a copy under another file (a duplicate across files)": None,
    "a copy renamed (a second app of the tenant)": None,
    "removed": None,
    "a tenant's quota burst": lambda text: text.replace("replicas: 2", "replicas: 400", 1),
    "invalid": lambda text: text.replace("kind: App", "kind: Ap", 1),
    "same size, modification time set back": None,
}


def _apply(repo: Path, edit: str, name: str) -> None:
    spec = repo / "apps" / name
    if not spec.exists():
        return
    if edit == "removed":
        spec.unlink()
    elif edit.startswith("a copy under another file"):
        (repo / "apps" / f"copy-{name}").write_text(spec.read_text())
    elif edit.startswith("same size"):
        before = spec.stat()
        spec.write_text(spec.read_text().replace("replicas: 2", "replicas: 9", 1))
        os.utime(spec, ns=(before.st_atime_ns, before.st_mtime_ns))
    elif edit.startswith("a copy renamed"):
        text = spec.read_text()
        (repo / "apps" / f"renamed-{name}").write_text(
            text.replace("  name: ", "  name: renamed-", 1)
        )
    else:
        change = EDITS[edit]
        assert change is not None
        spec.write_text(change(spec.read_text()))


def _outcome(repo: Path, cache: Path | None) -> Any:
    try:
        compiled, _ = incremental.compile_files(
            find_spec_files([repo / "apps"]), repo / "policies", cache=cache
        )
    except SpecError as exc:
        return ("refused", sorted(f.render() for f in exc.findings))
    return (dict(compiled.files), compiled.warnings, compiled.apps)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(sorted(EDITS)),
            st.sampled_from(sorted(p.name for p in (EXAMPLES / "apps").glob("*.yaml"))),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_the_remembered_cross_file_result_is_what_computing_it_gives(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[str, str]]
) -> None:
    """Differential: after every edit, a compile with the cache (whose remembered cross-file
    result is reused when every spec file is as it was, whose spec files are known by stat
    signature once settled) gives exactly what a compile without any cache gives: the same
    files, warnings and apps, or the same refusals."""
    repo = tmp_path_factory.mktemp("cross")
    shutil.copytree(EXAMPLES / "apps", repo / "apps")
    shutil.copytree(POLICIES, repo / "policies")
    cache = repo / "cache.json"
    with pytest.MonkeyPatch.context() as patch:  # spec files settle in 50 ms, not a second
        patch.setattr(statmemo, "SETTLE_NS", 50_000_000)
        time.sleep(0.075)
        assert _outcome(repo, cache) == _outcome(repo, None)
        for edit, name in edits:
            _apply(repo, edit, name)
            time.sleep(0.075)  # settled: the memo vouches for every spec file it read
            assert _outcome(repo, cache) == _outcome(repo, None)
            assert _outcome(repo, cache) == _outcome(repo, None)  # the second run reuses it


def test_the_literal_memo_keeps_only_the_newest_expressions(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bound on the cache: a bundle edited for years does not grow it without end. The
    bound is set to what the shipped bundle needs, so one more expression drops the oldest."""
    _compile(repo, [], monkeypatch)
    first = orjson.loads((repo / "cache.json").read_bytes())["cel"]["homogeneous"]
    assert len(first) >= 2
    monkeypatch.setattr(incremental, "HOMOGENEOUS_KEPT", len(first))
    _rule_with(repo, "object.kind in ['Deployment', 'Job']")
    _compile(repo, [], monkeypatch)
    second = orjson.loads((repo / "cache.json").read_bytes())["cel"]["homogeneous"]
    newest = hashlib.sha256(b"object.kind in ['Deployment', 'Job']").hexdigest()
    assert len(second) == len(first) and newest in second
    assert first[0] not in second

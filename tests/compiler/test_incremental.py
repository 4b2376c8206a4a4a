"""The compile cache: reused only when nothing it depends on changed, same bytes either way."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from compiler import incremental
from compiler.spec.load import find_spec_files
from tests.conftest import EXAMPLES, POLICIES


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

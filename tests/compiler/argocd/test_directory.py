"""Which files a directory-source Application reads: Argo CD's getPotentiallyValidManifests and
util/app/path.Path. The answers are Go's (the dir cases of test_go_oracle.py run the real
functions on real files)."""

from __future__ import annotations

import posixpath
from pathlib import PurePosixPath
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.argocd.directory import _relative, selects
from compiler.argocd.glob import GlobPanic


def _source(path: str, *, recurse: bool = True, include: str = "", exclude: str = "") -> Any:
    directory = {"recurse": recurse, "include": include, "exclude": exclude}
    return {"path": path, "directory": directory}


@pytest.mark.parametrize(
    ("path", "file", "expected"),
    [
        pytest.param("base/../apps", "apps/x.yaml", True, id="dot-dot is cleaned"),
        pytest.param("/apps", "apps/x.yaml", False, id="an absolute path is refused"),
        pytest.param("../apps", "apps/x.yaml", False, id="a path out of the repository"),
        pytest.param("", "x\n.yaml", False, id="a newline stops the name pattern"),
        pytest.param("", ".yml\n", False, id="the extension ends the name"),
        pytest.param("./apps/", "apps/a/b.json", True, id="recursion"),
    ],
)
def test_selection(path: str, file: str, expected: bool) -> None:
    assert selects(_source(path), file) is expected


def test_include_crosses_slashes_and_exclude_wins() -> None:
    assert selects(_source("", include="*.yaml"), "a/b/x.yaml")
    assert not selects(_source("", include="*.yaml", exclude="a/*"), "a/b/x.yaml")


def test_an_exclude_gobwas_panics_on_raises() -> None:
    with pytest.raises(GlobPanic):
        selects(_source("", exclude="??.yaml{"), "ab.yaml")
    assert selects(_source("", exclude="??.yaml{"), "abc.yaml")  # panics only at that length


_SEGMENT = st.sampled_from(["a", "b", "rendered", ".", "", "x.yaml", "..", "ns"])


def _slow(source_path: str, path: str) -> str | None:
    """The PurePosixPath arithmetic the fast path replaced."""
    if source_path.startswith("/"):
        return None
    base = PurePosixPath(posixpath.normpath(source_path or "."))
    if base.parts[:1] == ("..",):
        return None
    candidate = PurePosixPath(path)
    if str(base) == ".":
        return str(candidate)
    try:
        return str(candidate.relative_to(base))
    except ValueError:
        return None


@given(
    st.lists(_SEGMENT, max_size=4).map("/".join),
    st.lists(_SEGMENT, min_size=1, max_size=5).map("/".join),
)
@settings(max_examples=1000, deadline=None)
def test_relative_agrees_with_pure_posix_path(source_path: str, path: str) -> None:
    assert _relative(source_path, path) == _slow(source_path, path)

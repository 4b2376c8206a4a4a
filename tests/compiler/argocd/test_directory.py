"""The path arithmetic of a directory source: the string fast path held to PurePosixPath."""

from __future__ import annotations

from pathlib import PurePosixPath

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.argocd.directory import _relative

_SEGMENT = st.sampled_from(["a", "b", "rendered", ".", "", "x.yaml", "..", "ns"])


def _slow(source_path: str, path: str) -> str | None:
    """The PurePosixPath arithmetic the fast path replaced."""
    base = PurePosixPath(source_path.strip("/") or ".")
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

"""The stat memo (``compiler.compile.statmemo``): it only ever skips a read whose result it knows.

Differential: ``diff_tree`` with a memo carried from run to run says exactly what it says
without one, whatever happens to the files between runs, including the edits made to fool a
signature (same size, modification time set back, replaced by rename)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.compile import statmemo
from compiler.compile.statmemo import StatMemo
from compiler.compile.write import TreeError, diff_tree, digest, write_tree

SETTLE_NS = 50_000_000
"""The tests' settling time: 50 ms, many ticks of the clock file times come from."""


@pytest.fixture(autouse=True)
def quick_settle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(statmemo, "SETTLE_NS", SETTLE_NS)


def _settle() -> None:
    time.sleep(SETTLE_NS * 1.5 / 1e9)


def _run(out: Path, files: dict[str, bytes], memo_file: Path | None) -> object:
    """diff_tree's answer (or error) with the memo kept in ``memo_file``, or with none."""
    memo = statmemo.load(memo_file, "tree") if memo_file is not None else None
    try:
        diff: object = diff_tree(out, files, memo)
    except TreeError as exc:
        return ("error", str(exc))
    if memo is not None:
        statmemo.save(memo_file, "tree", memo)
    return diff


def _same_size_edit(path: Path) -> None:
    """Other bytes of the same length, the modification time set back to what it was."""
    before = path.stat()
    data = path.read_bytes()
    path.write_bytes(data[:-1] + (b"X" if data[-1:] != b"X" else b"Y"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _replace_by_rename(path: Path) -> None:
    before = path.stat()
    staged = path.with_suffix(".new")
    staged.write_bytes(path.read_bytes()[:-1] + b"Z")
    os.utime(staged, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(staged, path)


EDITS = {
    "same-size edit, mtime set back": _same_size_edit,
    "replaced by rename, mtime set back": _replace_by_rename,
    "appended": lambda p: p.write_bytes(p.read_bytes() + b"# more\n"),
    "removed": lambda p: p.unlink(),
    "made a directory": lambda p: (p.unlink(), p.mkdir()),
    "touched, same bytes": lambda p: p.write_bytes(p.read_bytes()),
}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(st.sampled_from(sorted(EDITS)), st.integers(0, 5), st.booleans()),
        min_size=1,
        max_size=4,
    )
)
def test_diff_with_the_memo_is_diff_without_it(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int, bool]]
) -> None:
    out = tmp_path_factory.mktemp("tree") / "rendered"
    files = {f"ns/app-{i}/deployment.yaml": f"kind: Deployment # {i}\n".encode() for i in range(6)}
    write_tree(out, files)
    memo_file = out.parent / "memo.json"
    _settle()
    assert _run(out, files, memo_file) == _run(out, files, None)  # learns every file
    assert statmemo.load(memo_file, "tree").known.keys() == files.keys()
    for edit, index, wait in steps:
        path = out / f"ns/app-{index}/deployment.yaml"
        if path.is_file():
            EDITS[edit](path)
        if wait:
            _settle()
        assert _run(out, files, memo_file) == _run(out, files, None)


def test_a_file_is_vouched_for_only_once_it_has_settled(tmp_path: Path) -> None:
    file = tmp_path / "a.yaml"
    file.write_bytes(b"a: 1\n")
    fresh = StatMemo()
    fresh.read("a", file.stat(), digest(b"a: 1\n"))
    assert fresh.learnt == {}  # written just now: a change in the same tick could hide
    _settle()
    later = StatMemo()
    later.read("a", file.stat(), digest(b"a: 1\n"))
    assert "a" in later.learnt
    next_run = StatMemo.from_json(later.as_json())
    _settle()
    assert next_run.digest("a", file.stat()) == digest(b"a: 1\n")
    _same_size_edit(file)
    assert next_run.digest("a", file.stat()) is None  # the change time moved


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        "x",
        {"read_at": "0", "files": {}},
        {"read_at": 1, "files": {"a": [1, 2, 3, "sha"]}},
        {"read_at": 1, "files": {"a": [1, 2, 3, 4, 5]}},
        {"read_at": 1, "files": {"a": ["1", 2, 3, 4, "sha"]}},
        {"read_at": 1, "files": []},
    ],
)
def test_a_memo_it_cannot_read_knows_nothing(data: object) -> None:
    assert StatMemo.from_json(data).known == {}


def test_a_memo_for_another_tree_or_a_broken_file_knows_nothing(tmp_path: Path) -> None:
    memo = StatMemo()
    file = tmp_path / "a"
    file.write_bytes(b"x")
    os.utime(file, ns=(0, 0))
    memo.learnt["a"] = (statmemo.signature(file.stat()), "sha")
    memo_file = tmp_path / "memo.json"
    statmemo.save(memo_file, "one tree", memo)
    assert statmemo.load(memo_file, "one tree").known == memo.learnt
    assert statmemo.load(memo_file, "another tree").known == {}
    memo_file.write_bytes(b"{not json")
    assert statmemo.load(memo_file, "one tree").known == {}

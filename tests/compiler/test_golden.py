"""Golden files: the rendered tree of examples/apps, byte for byte.

Regenerate with `make golden` (FEDGATE_REGENERATE_GOLDEN=1) and review the diff before
committing: a golden change is a change in what Argo CD will sync.
"""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

from compiler.commands.compile import compile_paths
from compiler.tree import write_tree
from tests.conftest import EXAMPLES, POLICIES, ROOT

GOLDEN = ROOT / "tests" / "golden" / "examples"


def _tree(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def test_examples_render_exactly_the_golden_tree(tmp_path: Path) -> None:
    compiled = compile_paths([EXAMPLES / "apps"], POLICIES)
    write_tree(tmp_path, compiled.files)
    if os.environ.get("FEDGATE_REGENERATE_GOLDEN"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        shutil.copytree(tmp_path, GOLDEN)
    actual, expected = _tree(tmp_path), _tree(GOLDEN)
    assert sorted(actual) == sorted(expected), "files differ; run `make golden` and review"
    diffs = []
    for path in sorted(actual):
        if actual[path] != expected[path]:
            diffs += difflib.unified_diff(
                expected[path].decode().splitlines(),
                actual[path].decode().splitlines(),
                f"golden/{path}",
                f"rendered/{path}",
                lineterm="",
            )
    assert not diffs, "\n".join(diffs) + "\n(run `make golden` if this change is intended)"

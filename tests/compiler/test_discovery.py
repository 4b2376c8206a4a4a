"""Listing a tree with one ``scandir`` per directory finds what the slow listings found: spec
files as ``rglob`` did, the rendered tree as ``os.walk`` did, and each file resolved as
``Path.resolve`` resolves it; on random trees with hidden names, odd suffixes, symbolic links
to files, to directories, to nothing and back up the tree."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.argocd.manifests import MANIFEST_SUFFIXES, UNREAD_SUFFIXES, tree_files
from compiler.compile.resolve import Resolver
from compiler.spec.load import SPEC_SUFFIXES, find_spec_files

NAMES = st.sampled_from(
    ["a.yaml", "b.yml", "c.json", "d.jsonnet", "e.txt", ".hidden.yaml", ".yaml", "f.YAML",
     "g.yaml.", "h..yaml", "i", "j.tar.yaml"]
)  # fmt: skip
DIRECTORIES = st.sampled_from(["", "team-a", "team-a/sub", ".git", "team-b/.cache", "x y"])
ENTRIES = st.lists(
    st.tuples(
        st.sampled_from(["file", "file", "directory", "link-file", "link-dir", "dangling", "up"]),
        DIRECTORIES,
        NAMES,
    ),
    max_size=14,
)


def _build(root: Path, entries: list[tuple[str, str, str]]) -> None:
    (root / "top").mkdir()
    (root / "outside.yaml").write_text("x")
    (root / "outside").mkdir()
    (root / "outside" / "o.yaml").write_text("x")
    for kind, directory, name in entries:
        folder = root / "top" / directory
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / name
        if os.path.lexists(target):
            continue
        if kind == "file":
            target.write_text("x")
        elif kind == "directory":
            target.mkdir()
            (target / "inner.yaml").write_text("x")
        elif kind == "link-file":
            target.symlink_to(root / "outside.yaml")
        elif kind == "link-dir":
            target.symlink_to(root / "outside", target_is_directory=True)
        elif kind == "dangling":
            target.symlink_to(root / "missing.yaml")
        else:
            target.symlink_to("..", target_is_directory=True)


def _rglob_specs(path: Path) -> list[Path]:
    """find_spec_files as it was (rglob), with a dangling link kept (read, it fails aloud)."""
    return sorted(
        p
        for p in path.rglob("*")
        if p.suffix in SPEC_SUFFIXES
        and (p.is_file() or (p.is_symlink() and not p.exists()))
        and not any(part.startswith(".") for part in p.relative_to(path).parts)
    )


def _walk_tree(root: Path) -> list[str]:
    """tree_files as it was (os.walk)."""
    found: list[str] = []
    for directory, _, names in os.walk(root):
        base = os.path.relpath(directory, root).replace(os.sep, "/")
        prefix = "" if base == "." else base + "/"
        found.extend(
            prefix + n for n in names if n.endswith((*MANIFEST_SUFFIXES, *UNREAD_SUFFIXES))
        )
    return sorted(found)


@settings(max_examples=150, deadline=None)
@given(entries=ENTRIES)
def test_listings_find_what_the_slow_ones_found(entries: list[tuple[str, str, str]]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        _build(root, entries)
        top = root / "top"
        assert find_spec_files([top]) == _rglob_specs(top)
        assert tree_files(top) == _walk_tree(top)
        previous = Path.cwd()
        try:
            os.chdir(root)  # relative spellings, as the CLI passes them
            assert find_spec_files([Path("top")]) == _rglob_specs(Path("top"))
            resolve = Resolver()
            candidates = [*_rglob_specs(Path("top")), *map(Path, _walk_tree(Path("top")))]
            for _, directory, name in entries:  # through links, up and back, missing
                spelled = Path("top", directory, name)
                candidates += [spelled, spelled / "inner.yaml", spelled / "top" / "a.yaml"]
                candidates += [Path("top", directory, "..", name), Path("top", directory, "")]
            for path in [*candidates, Path("top/."), Path("top/team-a/../a.yaml"), Path("nope")]:
                assert resolve(path) == str(path.resolve()), path
        finally:
            os.chdir(previous)
        shutil.rmtree(root / "top")

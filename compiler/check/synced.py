"""The synced tree: what Argo CD applies from the rendered directory, fedgate's files and the
hand-written ones beside them.

fedgate's own files are known from the fresh compile (and from ``.fedgate-manifest``, for files
it wrote before and will remove); every other manifest file under the directory was written by
someone else and is read as it is in the working tree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from compiler.argocd.manifests import Manifest, ManifestSet, read_tree, tree_files
from compiler.compile.write import read_manifest


@dataclass(frozen=True)
class SyncedTree:
    """fedgate's manifests (from the compile) and the hand-written ones (from the disk)."""

    fedgate: tuple[Manifest, ...]
    hand_written: ManifestSet
    """The hand-written manifests Argo CD applies to Karmada (``applied`` may leave some out)."""
    files: tuple[str, ...] = ()
    """Every hand-written file of the tree, read or not, applied to Karmada or not."""

    @property
    def manifests(self) -> tuple[Manifest, ...]:
        return (*self.fedgate, *self.hand_written.manifests)


def hand_written_files(out: Path, fedgate_files: Mapping[str, bytes]) -> list[str]:
    """Manifest files under ``out`` that fedgate neither writes now nor wrote before."""
    if not out.is_dir():
        return []
    previous = read_manifest(out)
    return [p for p in tree_files(out) if p not in fedgate_files and p not in previous]


Applied = Callable[[Iterable[Manifest]], list[Manifest]]
"""Manifests as Argo CD applies them (``writes.as_synced``)."""


def synced_tree(
    out: Path,
    fedgate_files: Mapping[str, bytes],
    objects: Mapping[str, Mapping[str, Any]],
    applied: Applied = list,
) -> SyncedTree:
    """The rendered tree as Argo CD will sync it once the compile is written: ``objects`` are
    fedgate's Karmada objects by path (the Argo CD pieces are not synced to Karmada); the
    hand-written manifests as ``applied`` says Argo CD applies them."""
    fedgate = tuple(Manifest(path, 1, obj) for path, obj in sorted(objects.items()))
    files = hand_written_files(out, fedgate_files)
    hand_written = read_tree(out, files)
    return SyncedTree(
        fedgate,
        replace(hand_written, manifests=tuple(applied(hand_written.manifests))),
        tuple(files),
    )

"""Files known by their stat signature: git's index trick, so that learning that a thousand
files did not change does not take reading them.

A memo maps a name to the signature of the file (size, modification and change times in ns,
inode) and the sha256 of the bytes it held when a run read it. A later run trusts the memo
for a file only when the signature is the same **and** the file had settled before the memo
was made: both its times at least ``SETTLE_NS`` older than the start of the run that read it.
A file written in the same instant as that read (the "racily clean" case: file times come from
a coarse clock, so a change right after the read could keep every time the same) is read
again, every time, until it has settled. A change of content changes the change time (which
no program can set back, unlike the modification time), a replacement by rename changes the
inode: either, and the file is read.

The memo is only ever a way to skip a read: a name it does not know, a signature that differs,
a memo that cannot be read, and the file is read and compared as before. It lives in the
repository's ``.git/fedgate/`` (per clone, never committed), written by the command that read
the files.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

TREE_FILE = "tree-stat.json"
"""The rendered tree's memo, beside the compile cache."""
SETTLE_NS = 1_000_000_000
"""How much older than the reading run a file's times must be for the memo to vouch for it
(file times lag the clock by up to a scheduler tick; a second is many ticks)."""

Signature = tuple[int, int, int, int]


def signature(status: os.stat_result) -> Signature:
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


def _settled(status: os.stat_result, read_at: int) -> bool:
    return max(status.st_mtime_ns, status.st_ctime_ns) < read_at - SETTLE_NS


@dataclass
class StatMemo:
    """What a run knows of its files' contents by signature, and what it learns for the next."""

    read_at: int = 0
    """When the run that made ``known`` started (ns since the epoch); 0: knows nothing."""
    known: dict[str, tuple[Signature, str]] = field(default_factory=dict)
    learnt: dict[str, tuple[Signature, str]] = field(default_factory=dict)
    started: int = field(default_factory=time.time_ns)

    def digest(self, name: str, status: os.stat_result) -> str | None:
        """The sha256 of the file's bytes when the memo vouches for them, else None (read it)."""
        entry = self.known.get(name)
        if entry is None or entry[0] != signature(status) or not _settled(status, self.read_at):
            return None
        self.learnt[name] = entry
        return entry[1]

    def read(self, name: str, status: os.stat_result, sha256: str) -> None:
        """The file, whose signature was ``status`` before it was read, held bytes of this
        sha256: remembered for the next run once the file has settled."""
        if _settled(status, self.started):
            self.learnt[name] = (signature(status), sha256)

    def as_json(self) -> dict[str, Any]:
        return {"read_at": self.started, "files": {n: [*s, d] for n, (s, d) in self.learnt.items()}}

    @property
    def changed(self) -> bool:
        """Whether the next run would know something else than this one did."""
        return self.learnt != self.known

    @classmethod
    def from_json(cls, data: Any) -> StatMemo:
        """The memo ``as_json`` wrote; an empty one for anything else."""
        try:
            read_at = data["read_at"]
            known = {
                name: ((size, mtime, ctime, inode), sha)
                for name, (size, mtime, ctime, inode, sha) in data["files"].items()
            }
        except (KeyError, TypeError, ValueError, AttributeError):
            return cls()
        if not isinstance(read_at, int) or not all(
            isinstance(name, str)
            and all(isinstance(x, int) for x in entry[0])
            and isinstance(entry[1], str)
            for name, entry in known.items()
        ):
            return cls()
        return cls(read_at, known)


def load(file: Path | None, key: str) -> StatMemo:
    """The memo kept in ``file`` for ``key`` (an empty one when there is none)."""
    if file is None:
        return StatMemo()
    try:
        data = orjson.loads(file.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return StatMemo()
    if not isinstance(data, dict) or data.get("key") != key:
        return StatMemo()
    return StatMemo.from_json(data.get("memo"))


def save(file: Path | None, key: str, memo: StatMemo) -> None:
    """Keep ``memo`` in ``file`` for ``key`` (beside it, then renamed); a memo that cannot be
    written only costs time."""
    if file is None or not memo.changed:
        return
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        temporary = file.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_bytes(orjson.dumps({"key": key, "memo": memo.as_json()}))
        os.replace(temporary, file)
    except OSError:
        pass

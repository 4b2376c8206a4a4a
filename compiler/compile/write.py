"""The only code that writes rendered manifests to disk: atomically, and only its own files.

The output directory holds a manifest (``.fedgate-manifest``: one ``sha256  path`` line per file
fedgate wrote). A compile:

1. refuses to overwrite a file it did not write (unless it already holds the same bytes);
2. writes every new or changed file beside its target (``*.fedgate-tmp``), fsynced;
3. writes the next manifest as ``.fedgate-manifest.next``: from here on the compile is committed;
4. renames the temporaries over their targets, deletes files the old manifest lists and the new
   one does not, and renames the next manifest into place.

An interruption before 3 leaves the previous tree as it was (stray temporaries are removed by the
next run); after 3, the next run rolls the commit forward before anything else. Ctrl-C and
SIGTERM are held back during step 4. Files fedgate did not write are never touched. Argo CD
ignores the manifest: it reads only ``.yaml``, ``.yml``, ``.json`` and ``.jsonnet`` files.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import signal
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import FrameType

from compiler.compile.statmemo import StatMemo
from webhook.errors import FedgateError

MANIFEST = ".fedgate-manifest"
PENDING = ".fedgate-manifest.next"
TMP_SUFFIX = ".fedgate-tmp"
_MANIFEST_HEAD = "# Files written by fedgate compile (sha256, path). Do not edit.\n"


class TreeError(FedgateError):
    """The output directory cannot be written as asked (nothing was changed)."""


@dataclass(frozen=True)
class TreeDiff:
    """How the directory differs from what the specs render."""

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unchanged: int = 0
    manifest_stale: bool = False

    @property
    def clean(self) -> bool:
        return not (self.added or self.changed or self.removed or self.manifest_stale)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest_bytes(files: Mapping[str, bytes]) -> bytes:
    return _manifest_text({path: digest(data) for path, data in files.items()})


def _manifest_text(digests: Mapping[str, str]) -> bytes:
    lines = "".join(f"{sha}  {path}\n" for path, sha in sorted(digests.items()))
    return (_MANIFEST_HEAD + lines).encode()


def read_manifest(out: Path, name: str = MANIFEST) -> dict[str, str]:
    """path -> sha256 of the files fedgate wrote last time (empty when there is no manifest)."""
    try:
        text = (out / name).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    return parse_manifest(text, str(out / name))


def parse_manifest(text: str, where: str) -> dict[str, str]:
    """path -> sha256 of a manifest's lines; ``where`` names it in errors."""
    entries = _manifest_entries(text)
    if isinstance(entries, int):
        raise TreeError(f"{where}:{entries}: not a manifest line; was it edited by hand?")
    return dict(entries)


@lru_cache(maxsize=4)  # check reads the working tree's manifest twice and HEAD's, mostly alike
def _manifest_entries(text: str) -> tuple[tuple[str, str], ...] | int:
    """(path, sha256) of each line of a manifest, or the number of its first bad line."""
    entries = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        sha, sep, path = line.partition("  ")
        if not sep or len(sha) != 64 or not _inside(path):
            return number
        entries.append((path, sha))
    return tuple(entries)


def _inside(path: str) -> bool:
    """A relative path that stays below the output directory."""
    return bool(path) and not path.startswith("/") and ".." not in path.split("/")


def _read(path: Path) -> bytes | None:
    return _read_named(os.fspath(path))


def _read_named(name: str) -> bytes | None:
    """The file's bytes, None when it does not exist (a plain ``open``: thousands of files
    are read this way, and pathlib's ``read_bytes`` costs twice as much)."""
    try:
        with open(name, "rb") as stream:
            return stream.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise TreeError(f"{name} is a directory where fedgate writes a file") from None


def diff_tree(out: Path, files: Mapping[str, bytes], memo: StatMemo | None = None) -> TreeDiff:
    """Compare ``out`` with ``files`` (relative path -> bytes); reads, never writes. ``memo``:
    what an earlier run read, by stat signature (``statmemo``): a file it vouches for is not
    read again; what this run reads is added to it."""
    if (out / PENDING).exists():
        raise TreeError(
            f"{out} holds an interrupted compile ({PENDING}); run fedgate compile to finish it"
        )
    old = read_manifest(out)
    added, changed, unchanged = [], [], 0
    base = os.fspath(out)
    digests = {path: digest(data) for path, data in files.items()}
    for path, data in files.items():
        name = os.path.join(base, path)
        status = None
        if memo is not None:
            try:
                status = os.stat(name)
            except (FileNotFoundError, NotADirectoryError):
                added.append(path)
                continue
            if memo.digest(path, status) == digests[path]:
                unchanged += 1
                continue
        current = _read_named(name)
        if current is None:
            added.append(path)
        elif current != data:
            changed.append(path)
        else:
            unchanged += 1
            if memo is not None and status is not None:
                memo.read(path, status, digests[path])
    removed = sorted(p for p in old if p not in files and (out / p).exists())
    manifest_stale = _read(out / MANIFEST) != _manifest_text(digests)
    return TreeDiff(tuple(added), tuple(changed), tuple(removed), unchanged, manifest_stale)


def write_tree(
    out: Path, files: Mapping[str, bytes], *, waiting: Callable[[], None] | None = None
) -> TreeDiff:
    """Make ``out`` hold exactly ``files`` among the files fedgate writes; see the module doc.
    One compile writes a tree at a time: a second one waits (``waiting`` is told once)."""
    out.mkdir(parents=True, exist_ok=True)
    with _exclusive(out, waiting):
        return _write_locked(out, files)


@contextmanager
def _exclusive(out: Path, waiting: Callable[[], None] | None) -> Iterator[None]:
    """An exclusive lock on the directory itself (flock: no lock file to commit or leave
    behind, released by the kernel when the process dies, however it dies)."""
    descriptor = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting()
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def _write_locked(out: Path, files: Mapping[str, bytes]) -> TreeDiff:
    recover(out)
    old = read_manifest(out)
    diff = diff_tree(out, files)
    foreign = [p for p in (*diff.changed, *diff.added) if p not in old and (out / p).exists()]
    if foreign:
        listed = ", ".join(str(out / p) for p in foreign[:5])
        raise TreeError(
            f"fedgate did not write {listed}{' and more' if len(foreign) > 5 else ''}; "
            "it will not overwrite files it does not own: move them away and compile again"
        )
    if diff.clean:
        return diff
    temporaries = _stage(out, files, [*diff.added, *diff.changed])
    _write_synced(out / PENDING, manifest_bytes(files))
    _fsync_dir(out)
    with _signals_held():
        _commit(out, temporaries, diff.removed)
    return diff


def recover(out: Path) -> None:
    """Finish a committed but interrupted compile, and drop temporaries of an uncommitted one."""
    if (out / PENDING).exists():
        new, old = read_manifest(out, PENDING), read_manifest(out)
        staged = [
            (out / (p + TMP_SUFFIX), out / p) for p in new if (out / (p + TMP_SUFFIX)).exists()
        ]
        with _signals_held():
            _commit(out, staged, sorted(p for p in old if p not in new))
    for stray in out.rglob("*" + TMP_SUFFIX):
        stray.unlink()


def _stage(out: Path, files: Mapping[str, bytes], paths: list[str]) -> list[tuple[Path, Path]]:
    staged: list[tuple[Path, Path]] = []
    temporary: Path | None = None
    try:
        for path in paths:
            target = out / path
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(target.name + TMP_SUFFIX)
            _write_synced(temporary, files[path])
            staged.append((temporary, target))
    except BaseException:
        for written, _ in staged:
            written.unlink(missing_ok=True)
        if temporary is not None:
            temporary.unlink(missing_ok=True)
        raise
    return staged


def _commit(
    out: Path, staged: list[tuple[Path, Path]], removed: list[str] | tuple[str, ...]
) -> None:
    for temporary, target in staged:
        os.replace(temporary, target)
    for path in removed:
        (out / path).unlink(missing_ok=True)
        _prune_empty_dirs(out, (out / path).parent)
    os.replace(out / PENDING, out / MANIFEST)
    _fsync_dir(out)


def _prune_empty_dirs(out: Path, directory: Path) -> None:
    while directory != out and out in directory.parents:
        try:
            directory.rmdir()  # only succeeds when empty: foreign files keep their directory
        except OSError:
            return
        directory = directory.parent


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _fsync_dir(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM back while renaming, then deliver them once the tree is consistent."""
    received: list[int] = []

    def hold(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)

    try:
        previous = {s: signal.signal(s, hold) for s in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread: signals cannot be handled here anyway
        yield
        return
    try:
        yield
    finally:
        for held, handler in previous.items():
            signal.signal(held, handler)
        for signum in received:
            signal.raise_signal(signum)

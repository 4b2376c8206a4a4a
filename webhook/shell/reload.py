"""What ``fedgate serve``'s master watches to reload without a restart, and the TLS pair it holds.

Kubernetes mounts a ConfigMap or a Secret as a directory whose files are symlinks through
``..data``, itself a symlink to a timestamped directory that the kubelet swaps atomically on
every change. The master compares a cheap fingerprint of the bundle directory and of the TLS
files every few seconds: the ``..data`` target where there is one (one readlink), else every
file's (path, size, mtime_ns, inode); a file rewritten in place changes its size or mtime, a
file replaced its inode. An unchanged fingerprint never reloads.

The certificate and key are read by the master, checked to load together, and handed to the
workers as bytes (loaded from memory files, never written to disk), so a worker serves exactly
the pair the master validated, even when the files change again meanwhile. gunicorn's own
loader, on failure, logs and serves plain HTTP: the webhook never uses it.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from webhook.base.errors import UsageError

Fingerprint = tuple[object, ...]

DATA_LINK = "..data"
"""The symlink the kubelet swaps in a ConfigMap or Secret volume."""


def _stat(path: Path) -> tuple[str, int, int, int] | tuple[str, str]:
    try:
        info = os.stat(path)  # through symlinks: the file they name now
    except OSError as exc:
        return str(path), exc.__class__.__name__
    return str(path), info.st_size, info.st_mtime_ns, info.st_ino


def directory_fingerprint(directory: Path) -> Fingerprint:
    """The ``..data`` target of a mounted volume, else every file's (path, size, mtime, inode)."""
    try:
        return ("link", os.readlink(directory / DATA_LINK))
    except OSError:
        pass
    files: list[object] = []
    for root, folders, names in os.walk(directory, followlinks=True):
        folders[:] = sorted(f for f in folders if not f.startswith(".."))
        files.extend(_stat(Path(root) / name) for name in sorted(names))
    return ("files", *files)


def files_fingerprint(*paths: str) -> Fingerprint:
    """Each file's resolved path and (size, mtime, inode): a swapped ``..data`` resolves anew."""
    return tuple((os.path.realpath(p), _stat(Path(p))) for p in paths)


@dataclass(frozen=True)
class TlsPair:
    """A certificate chain and its private key, PEM, that load together."""

    cert: bytes
    key: bytes

    def context(self) -> ssl.SSLContext:
        """A server context serving this pair (ssl.SSLError when they do not load)."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        with _memory_file(self.cert) as cert, _memory_file(self.key) as key:
            context.load_cert_chain(cert, key)
        return context


def read_tls_pair(certfile: str, keyfile: str) -> TlsPair:
    """Read both files and check they load together; UsageError says why not."""
    try:
        pair = TlsPair(Path(certfile).read_bytes(), Path(keyfile).read_bytes())
    except OSError as exc:
        raise UsageError(f"cannot read the TLS files {certfile}, {keyfile}: {exc}") from None
    try:
        pair.context()
    except ssl.SSLError as exc:
        raise UsageError(
            f"the TLS certificate {certfile} and key {keyfile} do not load together: {exc}"
        ) from None
    return pair


@contextmanager
def _memory_file(data: bytes) -> Iterator[str]:
    """A path to ``data`` held in memory only (Linux memfd), closed after."""
    descriptor = os.memfd_create("fedgate-tls", os.MFD_CLOEXEC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
        yield f"/proc/self/fd/{descriptor}"
    finally:
        os.close(descriptor)

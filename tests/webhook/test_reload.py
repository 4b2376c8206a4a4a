"""The master's change detection and the TLS pair it holds, without a server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import trustme

from tests.webhook.server import project
from webhook.base.errors import UsageError
from webhook.shell.reload import directory_fingerprint, files_fingerprint, read_tls_pair


def test_a_volume_fingerprint_changes_with_each_swap_and_only_then(tmp_path: Path) -> None:
    volume = tmp_path / "bundle"
    project(volume, {"clusters.yaml": b"a"})
    first = directory_fingerprint(volume)
    assert directory_fingerprint(volume) == first
    project(volume, {"clusters.yaml": b"a"})  # same content, new generation: a reload
    second = directory_fingerprint(volume)
    assert second != first
    assert files_fingerprint(str(volume / "clusters.yaml")) != files_fingerprint(
        str(tmp_path / "absent")
    )


def test_a_plain_directory_fingerprint_sees_an_edit_an_addition_and_a_removal(
    tmp_path: Path,
) -> None:
    (tmp_path / "rules" / "x").mkdir(parents=True)
    rule = tmp_path / "rules" / "x" / "rule.yaml"
    rule.write_text("a")
    seen = [directory_fingerprint(tmp_path)]
    assert directory_fingerprint(tmp_path) == seen[0]
    rule.write_text("bb")  # in place: size and mtime
    seen.append(directory_fingerprint(tmp_path))
    (tmp_path / "clusters.yaml").write_text("")
    seen.append(directory_fingerprint(tmp_path))
    rule.unlink()
    seen.append(directory_fingerprint(tmp_path))
    assert len(set(seen)) == len(seen)


def test_a_tls_pair_loads_and_a_mismatched_or_unreadable_one_is_refused(tmp_path: Path) -> None:
    ca = trustme.CA()
    one, other = ca.issue_cert("localhost"), ca.issue_cert("localhost")
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    one.cert_chain_pems[0].write_to_path(str(cert))
    one.private_key_pem.write_to_path(str(key))
    pair = read_tls_pair(str(cert), str(key))
    assert pair.context() is not None
    other.private_key_pem.write_to_path(str(key))
    with pytest.raises(UsageError, match="do not load together"):
        read_tls_pair(str(cert), str(key))
    os.unlink(key)
    with pytest.raises(UsageError, match="cannot read"):
        read_tls_pair(str(cert), str(key))

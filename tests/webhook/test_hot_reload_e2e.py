"""End to end: `fedgate serve` takes a changed bundle volume or TLS Secret without a restart.

The bundle and the certificate are laid out as the kubelet mounts a ConfigMap and a Secret
(timestamped directory, ``..data`` symlink, per-file symlinks) and swapped as it swaps them.
The master looks every FEDGATE_RELOAD_SECONDS (2 s by default, as deployed)."""

from __future__ import annotations

import http.client
import itertools
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import trustme
from cryptography import x509

from tests.conftest import EXAMPLES, POLICIES
from tests.webhook.server import Server, metric, project, serving, traffic

pytestmark = pytest.mark.slow  # starts fedgate serve (gunicorn) and swaps its volumes

BOUND_SECONDS = 15.0
DENIED = json.loads((EXAMPLES / "requests" / "deployment-latest-tag-denied.json").read_text())


def _flat(policies: Path) -> dict[str, bytes]:
    """The bundle as ConfigMap keys: ``rules/x/rule.yaml`` as ``rules__x__rule.yaml``."""
    return {
        p.relative_to(policies).as_posix().replace("/", "__"): p.read_bytes()
        for p in sorted(policies.rglob("*"))
        if p.is_file()
    }


def _allowed(server: Server) -> bool:
    _, body = server.review(DENIED)
    assert isinstance(body, dict), body
    return bool(body["response"]["allowed"])


def _until(server: Server, done: Callable[[], bool]) -> float:
    """Seconds until ``done()``; fails past BOUND_SECONDS."""
    started = time.monotonic()
    while not done():
        assert time.monotonic() - started < BOUND_SECONDS, server.output()
        time.sleep(0.1)
    return time.monotonic() - started


def test_a_swapped_bundle_volume_is_served_and_a_broken_one_refused(tmp_path: Path) -> None:
    files = _flat(POLICIES)
    volume = tmp_path / "bundle"
    project(volume, files)
    with serving(tmp_path, volume, workers=1) as server:
        master = server.process.pid
        assert not _allowed(server)  # image-tag denies :latest
        time.sleep(2.5)  # an unchanged bundle is never reloaded
        assert "changed on disk" not in server.output()

        binding = files["rules__image-tag__binding.yaml"].decode()
        warned = re.sub(r"(?m)^action: \w+", "action: warn", binding).encode()
        assert warned != binding.encode()
        with traffic(server, DENIED) as failures:
            project(volume, {**files, "rules__image-tag__binding.yaml": warned})
            seconds = _until(server, lambda: _allowed(server))
            time.sleep(2.0)  # the old worker stops meanwhile
        print(f"bundle swap served after {seconds:.2f} s")
        assert failures == []  # answered throughout the recycle

        project(
            volume,
            {
                **files,
                "rules__image-tag__binding.yaml": warned,
                "rules__image-tag__rule.yaml": b"validations: [\n",
            },
        )
        _until(server, lambda: "still serving the previous one" in server.output())
        time.sleep(1.0)
        assert _allowed(server)  # still the last good bundle: warn
        assert metric(server, "fedgate_bundle_load_errors_total") == "1.0"
        assert "rules/image-tag/rule.yaml:2:1: not valid YAML" in server.output()
        assert server.process.poll() is None and server.process.pid == master
        assert server.output().count("Starting gunicorn") == 1  # never restarted


def _serial(server: Server) -> int:
    with server.context.wrap_socket(
        socket.create_connection(("127.0.0.1", server.port), timeout=5),
        server_hostname="127.0.0.1",
    ) as connection:
        der = connection.getpeercert(binary_form=True)
    assert der is not None
    return int(x509.load_der_x509_certificate(der).serial_number)


def _pair(cert: trustme.LeafCert, key: trustme.LeafCert | None = None) -> dict[str, bytes]:
    return {
        "tls.crt": b"".join(blob.bytes() for blob in cert.cert_chain_pems),
        "tls.key": (key or cert).private_key_pem.bytes(),
    }


def _serial_of(cert: trustme.LeafCert) -> int:
    return int(x509.load_pem_x509_certificate(cert.cert_chain_pems[0].bytes()).serial_number)


def test_a_renewed_certificate_is_served_and_a_broken_pair_refused(tmp_path: Path) -> None:
    ca = trustme.CA()
    first, second, third = (ca.issue_cert("127.0.0.1", "localhost") for _ in range(3))
    volume = tmp_path / "tls"
    project(volume, _pair(first))
    tls = (ca, volume / "tls.crt", volume / "tls.key")
    with serving(tmp_path, POLICIES, workers=1, tls=tls) as server:
        master = server.process.pid
        assert _serial(server) == _serial_of(first)

        with traffic(server, DENIED) as failures:
            project(volume, _pair(second))  # cert-manager renews: same CA, new key and serial
            seconds = _until(server, lambda: _serial(server) == _serial_of(second))
            time.sleep(2.0)  # the old worker stops meanwhile
        print(f"certificate swap served after {seconds:.2f} s")
        assert failures == []  # answered throughout the recycle
        assert _allowed(server) is False  # and the webhook still answers

        project(volume, _pair(third, key=first))  # a certificate with another's key
        _until(server, lambda: "still serving the previous certificate" in server.output())
        time.sleep(1.0)
        assert _serial(server) == _serial_of(second)
        assert metric(server, "fedgate_tls_load_errors_total") == "1.0"
        assert "do not load together" in server.output()
        assert server.process.poll() is None and server.process.pid == master
        assert server.output().count("Starting gunicorn") == 1


ANSWER_SECONDS = 3.0
"""The API server's timeout for a review (deploy/): an answer later than this is a refusal."""


QUEUED_RESET_SECONDS = 0.05
"""A reset this soon after connecting is a connection the kernel queued on an old worker's own
socket (SO_REUSEPORT) in the instant that worker closed it: Linux resets what such a socket
still queues unless ``net.ipv4.tcp_migrate_req`` is 1 (docs/webhook.md, "Reloading"). It is
counted apart, and bounded: at most one per reload."""


@contextmanager
def _strict_traffic(
    server: Server, clients: int = 3, resets: list[str] | None = None
) -> Iterator[tuple[list[str], list[bool]]]:
    """Reviews from ``clients`` threads, each on a new connection, while the block runs; the
    first list collects every failure: refused, reset or closed at any point, not 200, or
    answered after ANSWER_SECONDS; the second, in order, whether each answer allowed. Given
    ``resets``, a reset within QUEUED_RESET_SECONDS of connecting goes there instead."""
    failures: list[str] = []
    allowed: list[bool] = []
    stop = threading.Event()
    body = json.dumps(DENIED).encode()

    def send() -> None:
        while not stop.is_set():
            started = time.monotonic()
            connection = http.client.HTTPSConnection(
                "127.0.0.1", server.port, context=server.context, timeout=ANSWER_SECONDS
            )
            try:
                connection.request("POST", "/validate", body, {"Content-Type": "application/json"})
                response = connection.getresponse()
                answer = json.loads(response.read())
            except (OSError, http.client.HTTPException, ValueError) as exc:
                seconds = time.monotonic() - started
                queued = isinstance(exc, ConnectionResetError) and seconds < QUEUED_RESET_SECONDS
                (resets if queued and resets is not None else failures).append(
                    f"{exc!r} after {seconds:.2f} s"
                )
                continue
            finally:
                connection.close()
            seconds = time.monotonic() - started
            if response.status != 200 or seconds > ANSWER_SECONDS:
                failures.append(f"{response.status} after {seconds:.2f} s")
            else:
                allowed.append(bool(answer["response"]["allowed"]))

    senders = [threading.Thread(target=send) for _ in range(clients)]
    for sender in senders:
        sender.start()
    try:
        yield failures, allowed
    finally:
        stop.set()
        for sender in senders:
            sender.join(timeout=2 * ANSWER_SECONDS)


SLOW_LOAD_SECONDS = 4.0
SLOW_LOAD = f"""
import time
from webhook.shell import server

_load = server.WebhookServer.load


def _slow_load(self):
    time.sleep({SLOW_LOAD_SECONDS})
    return _load(self)


server.WebhookServer.load = _slow_load
"""
"""A ``sitecustomize`` making each worker take SLOW_LOAD_SECONDS more to build its app, as
compiling the bundle takes at a load of 16 (the master, which never calls ``load``, is not
slowed): longer than ANSWER_SECONDS, so a connection a new worker takes before it serves fails."""


def test_reviews_are_answered_throughout_repeated_bundle_reloads(tmp_path: Path) -> None:
    """No moment of a reload without a worker serving: old workers stop only once the new
    ones serve, and new ones take connections only then, so reviews sent all along, on new
    connections, are answered in time, the answers switching to each new bundle."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SLOW_LOAD)
    files = _flat(POLICIES)
    binding = files["rules__image-tag__binding.yaml"].decode()
    warned = re.sub(r"(?m)^action: \w+", "action: warn", binding).encode()
    assert warned != binding.encode()
    volume = tmp_path / "bundle"
    project(volume, files)
    with serving(tmp_path, volume, workers=2, env={"PYTHONPATH": str(site)}) as server:
        master = server.process.pid
        resets: list[str] = []
        with _strict_traffic(server, resets=resets) as (failures, allowed):
            for turn in range(4):
                warn = turn % 2 == 0
                project(
                    volume, {**files, "rules__image-tag__binding.yaml": warned} if warn else files
                )
                _until(server, lambda warn=warn: _allowed(server) is warn)  # type: ignore[misc]
                time.sleep(2.0)  # the old workers stop meanwhile, under traffic
        assert failures == []
        assert len(resets) <= 4, resets  # at most one queued connection reset per reload
        switches = sum(1 for a, b in itertools.pairwise(allowed) if a != b)
        assert switches >= 4 and allowed[-1] is False  # each new bundle answered, the last deny
        assert server.output().count("stopping the older ones") >= 4
        assert server.process.pid == master and server.output().count("Starting gunicorn") == 1


HANG_LOAD = """
import os
import time
from webhook.shell import server

_load = server.WebhookServer.load


def _hung_load(self):
    if os.path.exists(os.environ["FEDGATE_TEST_HANG"]):
        time.sleep(3600)
    return _load(self)


server.WebhookServer.load = _hung_load
"""
"""A ``sitecustomize`` making each worker started once the file FEDGATE_TEST_HANG exists
never finish building its app: a new generation that never serves."""


def test_new_workers_that_never_serve_are_killed_and_the_old_ones_keep_serving(
    tmp_path: Path,
) -> None:
    """A reload whose new workers never serve ends with the old workers serving the old bundle
    (the master gives the new ones ``timeout``, 30 s), never with no worker."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(HANG_LOAD)
    hang = tmp_path / "hang"
    files = _flat(POLICIES)
    binding = files["rules__image-tag__binding.yaml"].decode()
    warned = re.sub(r"(?m)^action: \w+", "action: warn", binding).encode()
    volume = tmp_path / "bundle"
    project(volume, files)
    env = {"PYTHONPATH": str(site), "FEDGATE_TEST_HANG": str(hang)}
    with serving(tmp_path, volume, workers=2, env=env) as server:
        old = sorted(server.workers())
        hang.touch()
        with _strict_traffic(server) as (failures, allowed):
            project(volume, {**files, "rules__image-tag__binding.yaml": warned})
            _until(server, lambda: "policy bundle reloaded" in server.output())
            started = time.monotonic()
            while "did not serve within 30 s" not in server.output():
                assert time.monotonic() - started < 40, server.output()
                time.sleep(0.5)
            _until(server, lambda: sorted(server.workers()) == old)
        assert failures == []
        assert allowed and not any(allowed)  # the old bundle answered throughout
        assert _allowed(server) is False and sorted(server.workers()) == old

"""The live webhook under the faults an adversarial review found: slow
clients, a broken audit sink, large ledgers, chunked bodies, a refused SIGHUP, a bad key file.
Real gunicorn over real TLS on 127.0.0.1; every test bounded in time, stopping what it starts."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES, POLICIES
from tests.webhook.server import FEDGATE, Server, free_port, serving
from webhook.base.errors import UsageError
from webhook.base.ledger import encode
from webhook.shell.audit import FAILING_AFTER
from webhook.shell.server import check_key_file

pytestmark = pytest.mark.slow
REQUESTS = EXAMPLES / "requests"
EDIT = json.loads((REQUESTS / "deployment-edit-by-tenant-denied.json").read_text())
ALLOWED = json.loads((REQUESTS / "deployment-update-by-argocd-allowed.json").read_text())


def _probe(server: Server) -> float:
    """Seconds a fresh TLS connection takes to get /readyz answered (inf when it is not)."""
    started = time.monotonic()
    try:
        status, _ = server.request("GET", "/readyz")
    except OSError:
        return float("inf")
    return time.monotonic() - started if status == 200 else float("inf")


def _slow_header_clients(port: int, count: int, stop: threading.Event) -> None:
    """TLS clients sending their headers one byte a second, until stopped."""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    clients = [
        context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5))
        for _ in range(count)
    ]
    header = b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-A: "
    try:
        for index in range(10_000):
            if stop.wait(1.0):
                break
            for client in clients:
                client.send(header[index : index + 1] or b"a")
    except OSError:
        pass
    finally:
        for client in clients:
            client.close()


@contextmanager
def _stuck_handshakes(port: int, count: int) -> Iterator[None]:
    """Clients that send the first bytes of a TLS ClientHello and nothing more."""
    clients = []
    try:
        for _ in range(count):
            client = socket.create_connection(("127.0.0.1", port), timeout=5)
            client.send(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
            clients.append(client)
        yield
    finally:
        for client in clients:
            client.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("hardening"), POLICIES) as running:
        yield running


def test_slow_clients_do_not_starve_it(server: Server) -> None:
    """Ten clients sending headers at a byte a second and fifty that never finish the TLS
    handshake (the threaded workers answered nobody meanwhile): every probe answered within
    a second, and reviews still get their decision."""
    stop = threading.Event()
    slow = threading.Thread(target=_slow_header_clients, args=(server.port, 10, stop))
    slow.start()
    try:
        with _stuck_handshakes(server.port, 50):
            time.sleep(2.5)  # every slow client connected and holding on
            latencies = [_probe(server) for _ in range(8)]
            status, body = server.review(EDIT)
    finally:
        stop.set()
        slow.join(timeout=15)
    assert max(latencies) < 1.0, latencies
    assert status == 200 and isinstance(body, dict) and body["response"]["allowed"] is False


def test_a_chunked_body_over_the_limit_is_refused(server: Server) -> None:
    """It was read up to the limit, truncated and judged; now 413."""
    connection = server.connection()
    try:
        connection.putrequest("POST", "/validate")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Transfer-Encoding", "chunked")
        connection.endheaders()
        chunk = b" " * (1 << 20)
        try:
            for _ in range(8):  # 8 MiB, over the 7 MiB limit
                connection.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            connection.send(b"0\r\n\r\n")
        except OSError:
            pass  # it may answer, and close, before the rest is sent
        response = connection.getresponse()
        assert response.status == 413
        assert "larger than the 7340032 bytes" in json.loads(response.read())["message"]
    finally:
        connection.close()


def test_a_chunked_body_within_the_limit_is_judged(server: Server) -> None:
    body = json.dumps(EDIT).encode()
    connection = server.connection()
    try:
        connection.putrequest("POST", "/validate")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Transfer-Encoding", "chunked")
        connection.endheaders()
        for start in range(0, len(body), 1000):
            part = body[start : start + 1000]
            connection.send(b"%x\r\n%s\r\n" % (len(part), part))
        connection.send(b"0\r\n\r\n")
        response = connection.getresponse()
        assert response.status == 200
        assert json.loads(response.read())["response"]["allowed"] is False
    finally:
        connection.close()


def _workers(master: int) -> set[int]:
    """Process ids whose parent is ``master``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == master:
                found.add(int(entry.name))
    return found


def _rss_kib(pid: int) -> int:
    match = re.search(r"^VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
    assert match
    return int(match[1])


def _with_ledger(ledger: str, *, changed_labels: int = 0) -> dict[str, Any]:
    document = copy.deepcopy(EDIT)
    for obj in (document["request"]["object"], document["request"]["oldObject"]):
        obj["metadata"]["annotations"]["fedgate.dev/ownership"] = ledger
        obj["metadata"]["labels"].update({f"k{i}": "a" for i in range(changed_labels)})
    document["request"]["object"]["metadata"]["labels"].update(
        {f"k{i}": "b" for i in range(changed_labels)}
    )
    return document


def _wide_ledger(entries: int, salt: str = "") -> str:
    return encode(
        {"": "git", **{f"/metadata/labels/k{i}{salt}": "platform" for i in range(entries)}}
    )


def test_distinct_large_ledgers_neither_grow_a_worker_nor_slow_it(tmp_path: Path) -> None:
    """A distinct 110 KiB ledger per request grew a worker from 99 to 866 MiB in 20 s (caches
    keyed by the ledger text); a 258 KiB ledger took 72 s. Bounds, not benchmarks."""
    with serving(tmp_path, POLICIES, workers=1) as server:
        (worker,) = _workers(server.process.pid)
        server.review(_with_ledger(_wide_ledger(10)))
        before = _rss_kib(worker)
        connection = server.connection()
        started = time.monotonic()
        try:
            for index in range(150):  # about 16 MiB of distinct ledgers
                ledger = _wide_ledger(3000, salt=f"-{index}")  # ~110 KiB, past the 32 KiB cap
                status, body = server.review(_with_ledger(ledger), connection=connection)
                assert status == 200 and isinstance(body, dict)
                assert body["response"]["allowed"] is False
        finally:
            connection.close()
        assert time.monotonic() - started < 60
        assert _rss_kib(worker) - before < 64 * 1024, "the worker grew by more than 64 MiB"
        for ledger, labels in ((_wide_ledger(7000), 0), (_wide_ledger(450), 450)):
            started = time.monotonic()  # 258 KiB; and 450 changed fields each in a 16 KiB ledger
            status, body = server.review(_with_ledger(ledger, changed_labels=labels))
            assert status == 200 and isinstance(body, dict)
            assert time.monotonic() - started < 5


def _pipe_with_closed_reader() -> int:
    read, write = os.pipe()
    os.close(read)
    return write


@pytest.mark.parametrize(
    ("open_sink", "reason"),
    [
        pytest.param(lambda _: os.open("/dev/full", os.O_WRONLY), "error", id="full-disk"),
        pytest.param(lambda _: _pipe_with_closed_reader(), "closed", id="closed-pipe"),
        pytest.param(
            lambda tmp: (os.mkfifo(tmp / "fifo"), os.open(tmp / "fifo", os.O_RDWR))[1],
            "full",
            id="fifo-nobody-reads",
        ),
    ],
)
def test_a_broken_audit_sink_changes_no_answer(
    tmp_path: Path, open_sink: Callable[[Path], int], reason: str
) -> None:
    """stdout on a full disk answered 400, a closed pipe 400, a FIFO nobody reads hung
    /validate and /readyz. Now: the same decisions, counted, and reported after a threshold."""
    sink = open_sink(tmp_path)
    try:
        with serving(tmp_path, POLICIES, workers=1, stdout=sink) as server:
            documents = [EDIT, ALLOWED] * 500  # ~400 KiB of audit lines: more than a FIFO holds

            def one(index: int) -> bool:
                document = documents[index]
                status, body = server.review(document)
                expected = document is ALLOWED
                return (
                    status == 200
                    and isinstance(body, dict)
                    and (body["response"]["allowed"] is expected)
                )

            with ThreadPoolExecutor(max_workers=4) as pool:
                assert all(pool.map(one, range(len(documents))))
            assert _probe(server) < 1.0
            _, ready = server.request("GET", "/readyz")
            assert isinstance(ready, dict) and ready["audit"]["status"] == "failing", ready
            assert ready["audit"]["linesLostInARow"] >= FAILING_AFTER
            _, metrics = server.request("GET", "/metrics")
            lost = re.search(
                rf'^fedgate_audit_lines_dropped_total{{reason="{reason}"}} (\S+)$',
                str(metrics),
                re.M,
            )
            assert lost and float(lost[1]) >= FAILING_AFTER, metrics
    finally:
        os.close(sink)


def test_a_refused_reload_leaves_the_workers_alone(tmp_path: Path) -> None:
    policies = tmp_path / "policies"
    shutil.copytree(POLICIES, policies)
    with serving(tmp_path, policies, workers=2) as server:
        deadline = time.monotonic() + 30  # serving() returns once one worker answers
        while len(workers := _workers(server.process.pid)) < 2:
            assert time.monotonic() < deadline, server.output()
            time.sleep(0.1)
        assert len(workers) == 2
        (policies / "rules" / "image-tag" / "rule.yaml").write_text("validations: [\n")
        server.process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 20
        while "still serving the previous one" not in server.output():
            assert time.monotonic() < deadline, server.output()
            time.sleep(0.1)
        time.sleep(2)
        assert _workers(server.process.pid) == workers  # not recycled
        assert _probe(server) < 1.0
        shutil.copy(
            POLICIES / "rules" / "image-tag" / "rule.yaml", policies / "rules" / "image-tag"
        )
        server.process.send_signal(signal.SIGHUP)  # a good bundle does recycle them
        deadline = time.monotonic() + 20
        while _workers(server.process.pid) & workers:
            assert time.monotonic() < deadline, server.output()
            time.sleep(0.2)


def test_a_key_every_user_can_read_is_refused_at_start(tmp_path: Path) -> None:
    key = tmp_path / "tls.pem"
    key.write_text("not used")
    key.chmod(0o644)
    result = subprocess.run(
        [
            FEDGATE,
            "serve",
            "--certfile",
            str(key),
            "--keyfile",
            str(key),
            "--bind",
            f"127.0.0.1:{free_port()}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert f"the TLS key file {key} is readable or writable by every user (mode 0644)" in (
        result.stderr
    )


def test_the_key_file_check(tmp_path: Path) -> None:
    key = tmp_path / "tls.key"
    key.write_text("x")
    key.chmod(0o600)
    check_key_file(str(key))
    key.chmod(0o440)  # group-readable, as deploy/ mounts it
    check_key_file(str(key))
    key.chmod(0o604)
    with pytest.raises(UsageError, match="readable or writable by every user"):
        check_key_file(str(key))
    with pytest.raises(UsageError, match=r"cannot read the TLS key file .*: Is a directory"):
        check_key_file(str(tmp_path))


SERVE_WITH_OPTIONS = """
import sys
from pathlib import Path
from webhook.shell.server import ServeOptions, WebhookServer
from webhook.shell.settings import Settings
port, pem, policies = sys.argv[1:4]
options = ServeOptions(
    bind=f"127.0.0.1:{port}", certfile=pem, keyfile=pem, workers=1, connections=3, keepalive=2
)
WebhookServer(options, Settings(policies=Path(policies))).run()
"""


def test_the_first_request_has_a_deadline_and_connections_a_limit(tmp_path: Path) -> None:
    """gunicorn timed out only a connection's later requests: one that never sent its first
    stayed forever. Here keep-alive is 2 s and a worker takes 3 connections: a fourth closes
    the one idle longest and is served."""
    with serving(tmp_path, POLICIES, workers=1) as reference:  # for its certificate and port
        port, context = reference.port, reference.context
    pem = tmp_path / "tls.pem"
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE_WITH_OPTIONS, str(port), str(pem), str(POLICIES)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        server = Server(port, context, process, tmp_path / "unused.log")
        deadline = time.monotonic() + 30
        while _probe(server) == float("inf"):
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.2)
        idle = []
        for _ in range(4):
            idle.append(
                context.wrap_socket(
                    socket.create_connection(("127.0.0.1", port), timeout=10),
                    server_hostname="127.0.0.1",
                )
            )
            time.sleep(0.05)  # in this order on the server too
        started = time.monotonic()
        assert idle[0].recv(1) == b""  # the one idle longest: closed for the fourth
        assert time.monotonic() - started < 1.5
        idle[3].sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert idle[3].recv(12) == b"HTTP/1.1 200"  # the fourth: served
        assert idle[1].recv(1) == b""  # the second: closed when its first request is late
        assert 1.0 < time.monotonic() - started < 6
        for client in idle:
            client.close()
        assert _probe(server) < 1.0
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def test_no_connection_with_a_request_under_way_is_closed_to_make_room(tmp_path: Path) -> None:
    """With all three of a worker's connections in the middle of a request (headers and part of
    a body sent), a fourth finds none idle: it is the one closed, and the three are answered."""
    with serving(tmp_path, POLICIES, workers=1) as reference:  # for its certificate and port
        port, context = reference.port, reference.context
    pem = tmp_path / "tls.pem"
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE_WITH_OPTIONS, str(port), str(pem), str(POLICIES)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    body = json.dumps(ALLOWED).encode()
    head = (
        f"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    try:
        server = Server(port, context, process, tmp_path / "unused.log")
        deadline = time.monotonic() + 30
        while _probe(server) == float("inf"):
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.2)
        busy = []
        for _ in range(3):
            client = context.wrap_socket(
                socket.create_connection(("127.0.0.1", port), timeout=10),
                server_hostname="127.0.0.1",
            )
            client.sendall(head + body[:10])
            busy.append(client)
        time.sleep(0.3)
        fourth = context.wrap_socket(
            socket.create_connection(("127.0.0.1", port), timeout=10),
            server_hostname="127.0.0.1",
        )
        assert fourth.recv(1) == b""  # no room: the newcomer is closed
        fourth.close()
        for client in busy:
            client.sendall(body[10:])
            assert client.recv(12) == b"HTTP/1.1 200"
            client.close()
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)

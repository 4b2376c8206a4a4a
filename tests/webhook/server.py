"""A real `fedgate serve` (gunicorn, TLS) on 127.0.0.1 for tests: started, probed, stopped."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trustme

from webhook.suites import Case

STARTUP_SECONDS = 30
FEDGATE = str(Path(sys.executable).with_name("fedgate"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    port: int
    context: ssl.SSLContext
    process: subprocess.Popen[bytes]
    log: Path

    def connection(self) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context, timeout=10)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        content_type: str = "application/json",
        connection: http.client.HTTPSConnection | None = None,
    ) -> tuple[int, dict[str, Any] | str]:
        own = connection is None
        conn = connection or self.connection()
        try:
            headers = {"Content-Type": content_type} if body is not None else {}
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
        finally:
            if own:
                conn.close()
        try:
            return response.status, json.loads(data)
        except ValueError:
            return response.status, data.decode(errors="replace")

    def review(self, document: Any, **kwargs: Any) -> tuple[int, dict[str, Any] | str]:
        return self.request("POST", "/validate", json.dumps(document).encode(), **kwargs)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def workers(self) -> list[int]:
        """The worker processes' ids."""
        pid = self.process.pid
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return [int(child) for child in children]


@contextmanager
def serving(
    directory: Path,
    policies: Path,
    *,
    workers: int = 2,
    stdout: int | None = None,
    env: dict[str, str] | None = None,
    tls: tuple[trustme.CA, Path, Path] | None = None,
    args: Sequence[str] = (),
    wait_ready: bool = True,
) -> Iterator[Server]:
    """`fedgate serve` with a fresh CA and certificate; stopped (SIGTERM, then SIGKILL) after.
    Its standard output (the audit log) goes to ``stdout`` when given, else to the log, as
    ``fedgate serve > log 2>&1`` would (one descriptor, opened without O_APPEND). ``env``:
    more environment variables (FEDGATE_*). ``tls``: the CA to trust and the certificate and
    key files to serve, instead of a fresh pair. ``args``: more arguments of ``fedgate serve``;
    ``wait_ready`` False: yield once it answers /readyz at all, ready or not."""
    if tls is None:
        ca = trustme.CA()
        cert = ca.issue_cert("127.0.0.1", "localhost")
        pem = directory / "tls.pem"
        cert.private_key_and_cert_chain_pem.write_to_path(str(pem))
        pem.chmod(0o600)  # fedgate serve refuses a key every user can read
        certfile = keyfile = pem
    else:
        ca, certfile, keyfile = tls
    context = ssl.create_default_context()
    ca.configure_trust(context)
    port = free_port()
    log = directory / "server.log"
    env = {**os.environ, **(env or {}), "PROMETHEUS_MULTIPROC_DIR": str(directory / "metrics")}
    (directory / "metrics").mkdir()
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            [
                FEDGATE,
                "serve",
                "--bind",
                f"127.0.0.1:{port}",
                "--certfile",
                str(certfile),
                "--keyfile",
                str(keyfile),
                "--workers",
                str(workers),
                "--policies",
                str(policies),
                *args,
            ],
            stdout=sink if stdout is None else stdout,
            stderr=subprocess.STDOUT if stdout is None else sink,
            env=env,
        )
    server = Server(port, context, process, log)
    try:
        _wait_ready(server, ready=(200,) if wait_ready else (200, 503))
        yield server
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _wait_ready(server: Server, ready: tuple[int, ...] = (200,)) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"fedgate serve exited:\n{server.output()}")
        try:
            if server.request("GET", "/readyz")[0] in ready:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"fedgate serve not ready after {STARTUP_SECONDS} s:\n{server.output()}")


def project(volume: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` into ``volume`` as the kubelet updates a ConfigMap or Secret volume: a
    new timestamped directory, the ``..data`` symlink swapped to it at once (a rename), one
    symlink per file through ``..data``, and the previous directory removed."""
    volume.mkdir(exist_ok=True)
    data = volume / "..data"
    previous = os.readlink(data) if data.is_symlink() else None
    stamp = volume / f"..{time.strftime('%Y_%m_%d_%H_%M_%S')}.{time.monotonic_ns()}"
    stamp.mkdir()
    for name, content in files.items():
        (stamp / name).write_bytes(content)
        (stamp / name).chmod(0o600)
    staging = volume / "..data_tmp"
    staging.symlink_to(stamp.name)
    os.rename(staging, data)
    for name in files:
        if not (volume / name).is_symlink():
            (volume / name).symlink_to(f"..data/{name}")
    if previous is not None:
        for old in (volume / previous).iterdir():
            old.unlink()
        (volume / previous).rmdir()


def assert_answers_as_expected(server: Server, case: Case) -> None:
    """A suite case sent to the live webhook: answered 200 for its uid, allowed as the case
    expects, and each expected rule named in the message the API server shows the writer."""
    status, body = server.review(case.review)
    assert status == 200 and isinstance(body, dict), body
    response = body["response"]
    assert response["uid"] == case.review["request"]["uid"]
    assert response["allowed"] is case.expect.allowed
    for rule in case.expect.rules or ():
        assert f"[{rule}]" in response["status"]["message"]


@contextmanager
def traffic(server: Server, document: Any) -> Iterator[list[str]]:
    """Reviews of ``document`` one after another, each on a new connection, while the block
    runs; the list collects every failure (an error or a status other than 200) but a
    connection reset during its TLS handshake, before a request was sent: one queued at the old
    worker's listening socket when it closes is reset by the kernel (SO_REUSEPORT), a known
    limit of a recycle (the count is printed). A request sent and left unanswered is a
    failure."""
    failures: list[str] = []
    stop = threading.Event()
    resets = 0

    def send() -> None:
        nonlocal resets
        while not stop.is_set():
            connection = server.connection()
            try:
                connection.connect()  # the TLS handshake
            except (ConnectionResetError, ssl.SSLEOFError):
                resets += 1
                continue
            try:
                status, _ = server.review(document, connection=connection)
            except OSError as exc:
                failures.append(repr(exc))
                continue
            finally:
                connection.close()
            if status != 200:
                failures.append(str(status))

    sender = threading.Thread(target=send)
    sender.start()
    try:
        yield failures
    finally:
        stop.set()
        sender.join(timeout=15)
        print(f"connections reset before their request was read: {resets}")


def metric(server: Server, name: str) -> str:
    _, text = server.request("GET", "/metrics")
    found = re.search(rf"^{name} (\S+)$", str(text), re.MULTILINE)
    return found.group(1) if found else "absent"

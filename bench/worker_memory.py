"""Benchmark: what a worker keeps for good, per CEL library call and per connection.

    .venv/bin/python bench/worker_memory.py [--calls 20000] [--connections 300]

Memory is a process's own: its private pages (``/proc/PID/smaps_rollup``), what
``fedgate serve --worker-memory-mib`` bounds (docs/webhook.md, "A worker's memory ceiling").

- calls: in this process, cel-expr evaluates each expression ``--calls`` times after a warm-up
  of 1,000 (one compiled program, a new activation each time, as a review does); reported in
  bytes kept per evaluation. Functions fedgate implements in Python beside ones cel-cpp runs.
- connections: ``fedgate serve`` (1 worker, the shipped bundle, 127.0.0.1) answers an allowed
  Deployment UPDATE ``--connections`` times: each on a new TLS connection, each on a new
  plain-HTTP connection (another server), and all on one keep-alive TLS connection, twice;
  reported in KB the worker kept per request, measured 3 s after the last of each run (the
  first run grows the heap to what the traffic needs at once; the second shows what stays).

Linux only (smaps_rollup).
"""

from __future__ import annotations

import argparse
import gc
import http.client
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import trustme

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.webhook_heavy import free_port  # noqa: E402
from webhook.engine.cel.engines import make_backend  # noqa: E402
from webhook.shell.ceiling import own_memory_bytes  # noqa: E402

FEDGATE = str(Path(sys.executable).with_name("fedgate"))
BODY = (ROOT / "examples" / "requests" / "deployment-update-by-argocd-allowed.json").read_bytes()
VARIABLES = {
    "object": {
        "metadata": {"name": "web-1", "labels": {"app": "web"}, "annotations": {"n": "x" * 2000}},
        "spec": {"replicas": 3, "images": ["a", "b"]},
    }
}
EXPRESSIONS = {
    "python": [
        "object.metadata.name.split('-')",
        "object.metadata.name.find('[0-9]+')",
        "object.metadata.annotations.n.find('y')",
        "url('ftp://h/').getScheme()",
        "ip('10.0.0.1').family()",
        "'%s'.format([object.metadata.name])",
        "object.spec.images.min()",
        "quantity('1').isInteger()",
    ],
    "cel-cpp": [
        "object.metadata.name.matches('[0-9]+')",
        "object.metadata.name + '-x'",
        "object.spec.images.map(i, i + 'x')",
        "object.metadata.labels.app == 'web'",
    ],
}
STARTUP_SECONDS = 60.0


def kept_per_call(expression: str, calls: int) -> float:
    backend = make_backend("cel-expr")
    program = backend.compile(expression)
    for _ in range(1000):
        backend.evaluate(program, backend.activation(VARIABLES))
    gc.collect()
    before = own_memory_bytes(os.getpid()) or 0
    for _ in range(calls):
        backend.evaluate(program, backend.activation(VARIABLES))
    gc.collect()
    after = own_memory_bytes(os.getpid()) or 0
    return (after - before) / calls


@contextmanager
def served(pem: Path | None) -> Iterator[tuple[int, int]]:
    """``fedgate serve`` with one worker (TLS when ``pem``): (port, the worker's pid)."""
    port = free_port()
    command = [FEDGATE, "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1"]
    if pem is not None:
        command += ["--certfile", str(pem), "--keyfile", str(pem)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"fedgate serve did not start: {' '.join(command)}")
            children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text()
            if children.split():
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    pass
            time.sleep(0.2)
        yield port, int(children.split()[0])
    finally:
        process.terminate()
        process.wait(timeout=30)


def kept_per_request(
    worker: int, requests: int, connect: Callable[[], http.client.HTTPConnection], reuse: bool
) -> tuple[float, float]:
    """Bytes the worker kept per request over a first and then a second run of ``requests``:
    the first grows the heap to what the traffic needs at once (reused afterwards), the second
    shows what stays for good."""

    def ask(connection: http.client.HTTPConnection) -> None:
        connection.request("POST", "/validate", BODY, {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        assert response.status == 200, response.status

    def run() -> float:
        before = own_memory_bytes(worker) or 0
        kept = connect()
        for _ in range(requests):
            if not reuse:
                kept = connect()
            ask(kept)
            if not reuse:
                kept.close()
        kept.close()
        time.sleep(3)
        return ((own_memory_bytes(worker) or 0) - before) / requests

    for _ in range(20):  # warm-up
        with_new = connect()
        ask(with_new)
        with_new.close()
    time.sleep(3)
    return run(), run()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--connections", type=int, default=300)
    args = parser.parse_args()
    if own_memory_bytes(os.getpid()) is None:
        raise SystemExit("no /proc/PID/smaps_rollup here: Linux only")
    print(f"{'runs in':8} {'expression':45} {'bytes kept per evaluation':>26}")
    for where, expressions in EXPRESSIONS.items():
        for expression in expressions:
            print(f"{where:8} {expression:45} {kept_per_call(expression, args.calls):26.0f}")
    ca = trustme.CA()
    with tempfile.TemporaryDirectory() as scratch:
        pem = Path(scratch) / "tls.pem"
        ca.issue_cert("127.0.0.1").private_key_and_cert_chain_pem.write_to_path(str(pem))
        pem.chmod(0o600)
        context = ssl.create_default_context()
        ca.configure_trust(context)
        print(f"\n{'requests':42} {'KB kept per request: first run':>31} {'second run':>11}")
        with served(pem) as (port, worker):

            def tls() -> http.client.HTTPConnection:
                return http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)

            for label, reuse in (
                ("each on a new TLS connection", False),
                ("on one TLS connection", True),
            ):
                first, second = kept_per_request(worker, args.connections, tls, reuse)
                print(f"{label:42} {first / 1000:31.1f} {second / 1000:11.1f}", flush=True)
        with served(None) as (port, worker):

            def plain() -> http.client.HTTPConnection:
                return http.client.HTTPConnection("127.0.0.1", port, timeout=10)

            first, second = kept_per_request(worker, args.connections, plain, reuse=False)
            label = "each on a new plain-HTTP connection"
            print(f"{label:42} {first / 1000:31.1f} {second / 1000:11.1f}")


if __name__ == "__main__":
    main()

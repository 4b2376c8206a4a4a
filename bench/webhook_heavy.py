"""Benchmark: small admission requests while large ones are under review.

    .venv/bin/python bench/webhook_heavy.py [--threads 1,4] [--duration 10] [--rounds 3]
        [--source DIR]

Runs ``fedgate serve`` (2 workers, TLS, 127.0.0.1) once per ``--threads`` value and measures:

- burst: eight concurrent 2.5 MiB dry-run OverridePolicy CREATEs (33,000 plaintext
  overriders: about a second of review each), and 0.3 s later six small requests (a Deployment
  UPDATE, each on a new connection, as a fresh API server connection would). Reports the small
  requests' p50 and max seconds, how many passed the API server's 3 s timeout, and how the
  large ones were answered (their decision, or denied past the time budget) and when.
- mixed: wrk sends the small request on --connections (8) keep-alive connections for
  --duration seconds, alone
  and then with one large request a second sent beside it; reports wrk's requests/s, p50 and
  p99 of both, and the p99 ratio (with / alone).
- stalled: 70 connections announce 7 MiB bodies and send them a byte short; reports how many
  were refused at once and the workers' resident memory before, while held and 3 s after.

``--source DIR`` runs the fedgate of another checkout (``git archive <commit> | tar -x -C DIR``)
for a before/after on the same machine; its ``--threads`` is whatever that version does with
it. Needs wrk (Debian package ``wrk``). Rounds alternate over the thread counts; medians.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import trustme

ROOT = Path(__file__).resolve().parent.parent
REQUESTS = ROOT / "examples" / "requests"
SMALL_FILE = REQUESTS / "deployment-update-by-argocd-allowed.json"
API_SERVER_TIMEOUT = 3.0
LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local file = io.open("{body}", "rb")
wrk.body = file:read("*a")
file:close()
"""


def heavy_override(uid: str, overriders: int = 33_000) -> bytes:
    return json.dumps(heavy_override_document(uid, overriders)).encode()


def heavy_override_document(uid: str, overriders: int = 33_000) -> dict[str, Any]:
    """A dry-run OverridePolicy CREATE of about 2.5 MiB (33,000 plaintext overriders): a
    second or so of review on this machine."""
    document = json.loads((REQUESTS / "overridepolicy-create-allowed.json").read_text())
    document["request"]["uid"] = uid
    document["request"]["dryRun"] = True
    document["request"]["object"]["spec"]["overrideRules"][0]["overriders"] = {
        "plaintext": [
            {"path": f"/metadata/labels/k{i}", "operator": "replace", "value": "x" * 8}
            for i in range(overriders)
        ]
    }
    return document


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve_command(port: int, threads: int, pem: Path, policies: Path) -> list[str]:
    """``fedgate serve`` of the checkout on PYTHONPATH: 2 workers, TLS, on 127.0.0.1."""
    return [
        sys.executable,
        "-c",
        "from compiler.cli import entry; entry()",
        "serve",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "2",
        "--threads",
        str(threads),
        "--certfile",
        str(pem),
        "--keyfile",
        str(pem),
        "--policies",
        str(policies),
    ]


@contextmanager
def serving(
    source: Path, threads: int, work: Path
) -> Iterator[tuple[int, ssl.SSLContext, list[int]]]:
    ca = trustme.CA()
    pem = work / "tls.pem"
    ca.issue_cert("127.0.0.1").private_key_and_cert_chain_pem.write_to_path(str(pem))
    pem.chmod(0o600)
    context = ssl.create_default_context()
    ca.configure_trust(context)
    port = free_port()
    command = serve_command(port, threads, pem, source / "policies")
    env = {
        **os.environ,
        "PYTHONPATH": str(source),
        "PROMETHEUS_MULTIPROC_DIR": tempfile.mkdtemp(dir=work),
        "FEDGATE_AUDIT_LOG": "0",
    }
    with open(work / "server.log", "ab") as log:
        process = subprocess.Popen(command, cwd=source, stdout=log, stderr=log, env=env)
    try:
        deadline = time.monotonic() + 60
        while _status(port, context, "GET", "/readyz") != 200:
            if time.monotonic() > deadline or process.poll() is not None:
                raise SystemExit(
                    f"fedgate serve did not start:\n{(work / 'server.log').read_text()}"
                )
            time.sleep(0.2)
        pid = process.pid
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        yield port, context, [int(child) for child in children]
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _status(port: int, context: ssl.SSLContext, method: str, path: str) -> int:
    try:
        connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=5)
        connection.request(method, path)
        status = connection.getresponse().status
        connection.close()
        return status
    except OSError:
        return 0


def post(port: int, context: ssl.SSLContext, body: bytes) -> tuple[float, dict[str, Any]]:
    """Seconds to the answer on a new connection, and the AdmissionReview response."""
    started = time.monotonic()
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=60)
    try:
        connection.request("POST", "/validate", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        data = response.read()
    finally:
        connection.close()
    elapsed = time.monotonic() - started
    if response.status != 200:
        return elapsed, {"http": response.status, "body": data[:200].decode(errors="replace")}
    return elapsed, json.loads(data)["response"]


def burst(port: int, context: ssl.SSLContext) -> dict[str, float]:
    large = [heavy_override(f"heavy-{i}") for i in range(8)]
    small = SMALL_FILE.read_bytes()
    with ThreadPoolExecutor(16) as pool:
        heavy = [pool.submit(post, port, context, body) for body in large]
        time.sleep(0.3)
        quick = [pool.submit(post, port, context, small) for _ in range(6)]
        small_times = [future.result()[0] for future in quick]
        heavy_done = [future.result() for future in heavy]
    overtime = sum(
        "time budget" in str(answer.get("status", {}).get("message", ""))
        for _, answer in heavy_done
    )
    allowed = sum(answer.get("allowed") is True for _, answer in heavy_done)
    refused = [answer for _, answer in heavy_done if "http" in answer]
    if refused:
        print(f"  large requests not answered 200: {refused}", file=sys.stderr)
    return {
        "small p50 s": statistics.median(small_times),
        "small max s": max(small_times),
        "small past 3 s": sum(t > API_SERVER_TIMEOUT for t in small_times),
        "large max s": max(t for t, _ in heavy_done),
        "large over budget": overtime,
        "large allowed": allowed,
        "large not 200": len(refused),
    }


def wrk(port: int, script: Path, seconds: int, connections: int) -> tuple[float, float, float, int]:
    """requests/s, p50 and p99 ms, and requests not answered within 10 s (wrk's timeout: they
    are left out of its latencies)."""
    output = subprocess.run(
        [
            "wrk",
            "-t1",
            f"-c{connections}",
            f"-d{seconds}s",
            "--timeout",
            "10s",
            "--latency",
            "-s",
            str(script),
            f"https://127.0.0.1:{port}/validate",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=seconds + 60,
    ).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output)[1])  # type: ignore[index]
    timeouts = re.search(r"timeout (\d+)", output)
    return rate, _ms(output, "50"), _ms(output, "99"), int(timeouts[1]) if timeouts else 0


def _ms(output: str, percentile: str) -> float:
    found = re.search(rf"^\s+{percentile}%\s+([\d.]+)(us|ms|s|m)\s*$", output, re.M)
    if found is None:  # wrk saw no answer in the window
        print(f"  wrk reported no {percentile}th percentile:\n{output}", file=sys.stderr)
        return float("nan")
    value, unit = found.groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}[unit]


def mixed(
    port: int, context: ssl.SSLContext, script: Path, seconds: int, connections: int
) -> dict[str, float]:
    alone = wrk(port, script, seconds, connections)
    stop = threading.Event()
    heavy_times: list[float] = []
    body = heavy_override("heavy-mixed")

    def one_a_second() -> None:
        while not stop.is_set():
            started = time.monotonic()
            heavy_times.append(post(port, context, body)[0])
            stop.wait(max(0.0, 1.0 - (time.monotonic() - started)))

    sender = threading.Thread(target=one_a_second)
    sender.start()
    try:
        together = wrk(port, script, seconds, connections)
    finally:
        stop.set()
        sender.join(timeout=120)
    return {
        "alone req/s": alone[0],
        "alone p50 ms": alone[1],
        "alone p99 ms": alone[2],
        "mixed req/s": together[0],
        "mixed p50 ms": together[1],
        "mixed p99 ms": together[2],
        "mixed timeouts": together[3],
        "p99 x": together[2] / alone[2],
        "large sent": len(heavy_times),
        "large p50 s": statistics.median(heavy_times) if heavy_times else float("nan"),
    }


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def stalled(port: int, context: ssl.SSLContext, workers: list[int]) -> dict[str, float]:
    """70 connections announcing 7 MiB bodies, each sent a byte short (or refused at once);
    the workers' summed resident memory before, while they are held, and 3 s after they close."""
    size = 7 * 1024 * 1024
    header = (
        f"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {size}\r\n\r\n"
    ).encode()
    chunk = b" " * (1024 * 1024)
    before = sum(_rss_mib(pid) for pid in workers)
    clients = []
    refused = 0
    try:
        for _ in range(70):
            raw = socket.create_connection(("127.0.0.1", port), timeout=10)
            client = context.wrap_socket(raw, server_hostname="127.0.0.1")
            clients.append(client)
            client.sendall(header)
            client.settimeout(0.2)
            try:
                refused += bool(client.recv(12))
                continue
            except TimeoutError:
                pass
            client.settimeout(10)
            try:
                for _ in range(6):
                    client.sendall(chunk)
                client.sendall(chunk[:-1])
            except OSError:
                refused += 1
        time.sleep(0.5)
        held = sum(_rss_mib(pid) for pid in workers)
    finally:
        for client in clients:
            client.close()
    time.sleep(3)
    after = sum(_rss_mib(pid) for pid in workers)
    return {
        "refused": refused,
        "rss before MiB": before,
        "rss held MiB": held,
        "rss after MiB": after,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--threads", default="1,4")
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=8, help="wrk's, for mixed")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--source", type=Path, default=ROOT)
    parser.add_argument("--only", choices=["burst", "mixed", "stalled"], default=None)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fedgate-heavy-"))
    script = work / "small.lua"
    script.write_text(LUA.format(body=SMALL_FILE))
    results: dict[int, list[dict[str, float]]] = {}
    for round_ in range(args.rounds):
        for threads in (int(t) for t in args.threads.split(",")):
            with serving(args.source.resolve(), threads, work) as (port, context, workers):
                post(port, context, SMALL_FILE.read_bytes())  # warm-up
                row: dict[str, float] = {}
                if args.only in (None, "burst"):
                    row.update(burst(port, context))
                if args.only in (None, "mixed"):
                    row.update(mixed(port, context, script, args.duration, args.connections))
                if args.only in (None, "stalled"):
                    row.update(stalled(port, context, workers))
            results.setdefault(threads, []).append(row)
            print(
                f"round {round_ + 1}, threads {threads}: "
                + ", ".join(f"{k} {v:.3g}" for k, v in row.items()),
                file=sys.stderr,
                flush=True,
            )
    for threads, rows in results.items():
        medians = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
        print(
            f"threads {threads} (medians of {len(rows)}): "
            + ", ".join(f"{k} {v:.3g}" for k, v in medians.items())
        )


if __name__ == "__main__":
    main()

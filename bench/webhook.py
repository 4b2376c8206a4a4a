"""Benchmark: fedgate serve against an allow-all floor, same gunicorn settings, same TLS.

    .venv/bin/python bench/webhook.py [--duration 10] [--connections 1,8,32]

Needs wrk (Debian package `wrk`). Both servers run gunicorn gthread, 2 workers x 4 threads,
SO_REUSEPORT, keep-alive, TLS with the same certificate, on 127.0.0.1; wrk keeps its
connections open as the API server does. For a Deployment UPDATE and a PropagationPolicy
CREATE (examples/requests), at each connection count, it reports requests/s, p50 and p99 for
the floor and fedgate side by side and their ratios. The servers run one at a time,
alternating floor and fedgate for --rounds rounds; the table shows medians (the ratios are the
medians of each round's ratio), because this shared machine drifts between runs.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import trustme

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
REQUESTS = {
    "Deployment UPDATE": "deployment-replicas-by-federatedhpa-allowed.json",
    "PropagationPolicy CREATE": "propagationpolicy-create-allowed.json",
}
LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local file = io.open("{body}", "rb")
wrk.body = file:read("*a")
file:close()
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running(command: list[str], port: int, context: ssl.SSLContext, log: Path) -> Iterator[None]:
    with open(log, "ab") as sink:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = http.client.HTTPSConnection(
                    "127.0.0.1", port, context=context, timeout=2
                )
                connection.request("GET", "/readyz")
                if connection.getresponse().status == 200:
                    break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise SystemExit(f"{command[0]} did not start:\n{log.read_text()}") from None
                time.sleep(0.2)
        yield
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def wrk(
    port: int, script: Path, connections: int, seconds: int
) -> tuple[float, float, float, float]:
    """requests/s, p50 ms, p90 ms, p99 ms."""
    output = subprocess.run(
        [
            "wrk",
            "-t1",
            f"-c{connections}",
            f"-d{seconds}s",
            "--latency",
            "-s",
            str(script),
            f"https://127.0.0.1:{port}/validate",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=seconds + 30,
    ).stdout
    if "Non-2xx" in output:
        raise SystemExit(f"wrk saw errors:\n{output}")
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output)[1])  # type: ignore[index]
    return rate, _ms(output, "50"), _ms(output, "90"), _ms(output, "99")


def _ms(output: str, percentile: str) -> float:
    value, unit = re.search(rf"^\s+{percentile}%\s+([\d.]+)(us|ms|s)$", output, re.M).groups()  # type: ignore[union-attr]
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", default="1,8,32")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="alternating floor/fedgate rounds; medians are reported",
    )
    parser.add_argument(
        "--each-round",
        action="store_true",
        help="also print every round's numbers (requests/s, p50, p90, p99) on stderr",
    )
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    work = Path(tempfile.mkdtemp(prefix="fedgate-bench-"))
    ca = trustme.CA()
    pem = work / "tls.pem"
    ca.issue_cert("127.0.0.1").private_key_and_cert_chain_pem.write_to_path(str(pem))
    context = ssl.create_default_context()
    ca.configure_trust(context)
    port = free_port()
    tls = ["--certfile", str(pem), "--keyfile", str(pem)]
    servers = {
        "floor": [
            str(BIN / "gunicorn"),
            "--workers",
            "2",
            "--worker-class",
            "gthread",
            "--threads",
            "4",
            "--reuse-port",
            "--keep-alive",
            "75",
            "--bind",
            f"127.0.0.1:{port}",
            "--no-control-socket",
            *tls,
            "bench.floor_app:create_app()",
        ],
        "fedgate": [
            str(BIN / "fedgate"),
            "serve",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--threads",
            "4",
            *tls,
            "--policies",
            "policies",
        ],
    }
    print(
        f"{'request':26} {'conns':>5} | {'floor req/s':>11} {'p50':>6} {'p99':>6} | "
        f"{'fedgate req/s':>13} {'p50':>6} {'p99':>6} | {'thru x':>6} {'p99 x':>6}"
    )
    for label, file in REQUESTS.items():
        script = work / f"{file}.lua"
        script.write_text(LUA.format(body=ROOT / "examples" / "requests" / file))
        for connections in (int(c) for c in args.connections.split(",")):
            runs: dict[str, list[tuple[float, float, float, float]]] = {
                name: [] for name in servers
            }
            ratios: list[tuple[float, float]] = []
            for _ in range(args.rounds):  # alternate, so both see the same machine
                for name, command in servers.items():
                    with running(command, port, context, work / f"{name}.log"):
                        wrk(port, script, connections, 2)  # warm-up: imports, TLS sessions
                        runs[name].append(wrk(port, script, connections, args.duration))
                floor_run, fedgate_run = runs["floor"][-1], runs["fedgate"][-1]
                ratios.append((fedgate_run[0] / floor_run[0], fedgate_run[3] / floor_run[3]))
                if args.each_round:
                    print(
                        f"  round {len(ratios)}: {label}, {connections} connections: "
                        + "; ".join(
                            f"{name} {run[0]:.0f} req/s p50 {run[1]:.2f} p90 {run[2]:.2f} "
                            f"p99 {run[3]:.2f} ms"
                            for name, run in (("floor", floor_run), ("fedgate", fedgate_run))
                        )
                        + f"; {ratios[-1][0]:.2f}x / {ratios[-1][1]:.2f}x",
                        file=sys.stderr,
                        flush=True,
                    )
            (fr, f50, _, f99), (gr, g50, _, g99) = (
                tuple(statistics.median(x) for x in zip(*runs[name], strict=True))
                for name in ("floor", "fedgate")
            )
            thru = statistics.median(r for r, _ in ratios)
            tail = statistics.median(p for _, p in ratios)
            print(
                f"{label:26} {connections:>5} | {fr:11.0f} {f50:6.2f} {f99:6.2f} | "
                f"{gr:13.0f} {g50:6.2f} {g99:6.2f} | {thru:6.2f} {tail:6.2f}",
                flush=True,
            )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Benchmark: fedgate serve against an allow-all floor, same gunicorn settings, same TLS.

    .venv/bin/python bench/webhook.py [--duration 10] [--connections 1,8,32] [--rounds 5]

Needs wrk (Debian package `wrk`) and, to match connection splits, `ss` (iproute2). Both servers
run gunicorn's asyncio worker (the WSGI app behind webhook/shell/asgi.py, 4 threads each),
2 workers, SO_REUSEPORT, keep-alive, TLS with the same certificate, on 127.0.0.1; wrk keeps its
connections open as the API server does. For a Deployment UPDATE and a PropagationPolicy CREATE
(examples/requests), at each connection count, it reports requests/s, p50 and p99 for the floor
and fedgate side by side and their ratios. The servers run one at a time, alternating floor and
fedgate for --rounds rounds; the table shows medians (the ratios are the medians of each round's
ratio), because this shared machine drifts.

Matched connection splits. The kernel hashes each keep-alive connection to one worker, and
the split decides the tail: with 8 connections, a worker holding 7 of them answers its 7 at a
third of the rate the other answers its 1, whatever the server (measured: p99 22 ms with a 7/2
split, 13-16 ms with 5/4, the same fedgate). Each round, the floor's split is what the kernel
gives; fedgate's wrk is restarted (up to --attempts times) until its connections are split the
same way, so that each round compares like with like. --each-round prints every round with both
splits; a round that could not be matched says so.

--mixed: the mixed load of the webhook-cost target. During each measured wrk run, one 2.5 MiB
dry-run OverridePolicy CREATE (33,000 plaintext overriders, ``bench/webhook_heavy.py``'s) is
posted a second on a connection of its own, to the floor and to fedgate alike; the table is
the small requests' (wrk's), so its p99 ratio is the small requests' beside the large ones.

Several fedgates in one run: ``--threads 1,4`` measures each thread count, and ``--against DIR``
(another checkout, ``git archive <commit> | tar -x -C DIR``) that checkout's fedgate too, in the
same alternating rounds against the same floor, one row each: before and after, side by side.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import resource
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import trustme

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.webhook_heavy import heavy_override, post, serve_command  # noqa: E402

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


@dataclass(frozen=True)
class Server:
    """One server to measure: its command, run from ``source`` (a checkout)."""

    command: list[str]
    source: Path = ROOT


@contextmanager
def running(
    server: Server, port: int, context: ssl.SSLContext, log: Path
) -> Iterator[subprocess.Popen[bytes]]:
    command = server.command
    with open(log, "ab") as sink:
        process = subprocess.Popen(
            command,
            cwd=server.source,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": str(server.source)},
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = http.client.HTTPSConnection(
                    "127.0.0.1", port, context=context, timeout=2
                )
                connection.request("GET", "/readyz")
                ready = connection.getresponse().status == 200
                connection.close()  # not one more keep-alive connection on a worker
                if ready:
                    break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise SystemExit(f"{command[0]} did not start:\n{log.read_text()}") from None
                time.sleep(0.2)
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


@dataclass(frozen=True)
class Run:
    rate: float
    p50: float
    p90: float
    p99: float
    split: tuple[int, ...]
    """Established connections per worker process, largest first."""
    requests: int = 0
    """Requests wrk completed."""
    usage: Usage | None = None
    """What the server and wrk spent meanwhile (``--cpu``)."""


@dataclass(frozen=True)
class Usage:
    """CPU seconds and context switches over one wrk run."""

    server_seconds: float
    """User and system time of the server's processes (every thread, reaped children too)."""
    server_system_seconds: float
    """The system (kernel) part of ``server_seconds``."""
    server_switches: int
    """Voluntary and involuntary context switches of the server's threads."""
    wrk_seconds: float
    """wrk's own user and system time."""

    def __sub__(self, other: Usage) -> Usage:
        return Usage(
            self.server_seconds - other.server_seconds,
            self.server_system_seconds - other.server_system_seconds,
            self.server_switches - other.server_switches,
            self.wrk_seconds - other.wrk_seconds,
        )


TICKS = os.sysconf("SC_CLK_TCK")


def _descendants(root: int) -> list[int]:
    """``root`` and every process under it (the gunicorn master, its workers, their children)."""
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue  # gone meanwhile
            parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    found, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def usage_of(root: int) -> Usage:
    """The server tree's CPU seconds and context switches so far, and this process's reaped
    children's CPU seconds (wrk's, once it is waited for)."""
    seconds, system, switches = 0.0, 0.0, 0
    for pid in _descendants(root):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            seconds += sum(int(value) for value in fields[11:15]) / TICKS  # u, s, cu, cs time
            system += (int(fields[12]) + int(fields[14])) / TICKS
            for task in os.scandir(f"/proc/{pid}/task"):
                status = Path(task.path, "status").read_text()
                switches += sum(
                    int(n) for n in re.findall(r"^\w*ctxt_switches:\s+(\d+)$", status, re.M)
                )
        except OSError:
            continue  # gone meanwhile
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Usage(seconds, system, switches, children.ru_utime + children.ru_stime)


def connection_split(port: int) -> tuple[int, ...]:
    """How the established connections to ``port`` are spread over the server's processes."""
    if shutil.which("ss") is None:
        return ()
    output = subprocess.run(
        ["ss", "-tnpH", "state", "established", f"( sport = :{port} )"],
        capture_output=True,
        text=True,
        check=False,
        timeout=10,
    ).stdout
    counts = Counter(re.findall(r"pid=(\d+)", output))
    return tuple(sorted(counts.values(), reverse=True))


def wrk(
    port: int,
    script: Path,
    connections: int,
    seconds: int,
    *,
    split: tuple[int, ...] | None = None,
    attempts: int = 1,
    usage: Callable[[], Usage] | None = None,
) -> Run:
    """One wrk run; with ``split``, restarted (up to ``attempts`` times) until the kernel has
    spread its connections over the workers that way. ``Run.split`` is the split it ran with.
    With ``usage``, ``Run.usage`` is what it says was spent over the run that counted."""
    command = [
        "wrk",
        "-t1",
        f"-c{connections}",
        f"-d{seconds}s",
        "--latency",
        "-s",
        str(script),
        f"https://127.0.0.1:{port}/validate",
    ]
    for attempt in range(1, attempts + 1):
        before = usage() if usage is not None else None
        process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        time.sleep(min(0.5, seconds / 4))  # connections are opened at once, at the start
        seen = connection_split(port)
        if split is None or seen == split or attempt == attempts:
            output, _ = process.communicate(timeout=seconds + 30)
            spent = usage() - before if usage is not None and before is not None else None
            break
        process.kill()
        process.wait(timeout=10)
    if process.returncode != 0 or "Non-2xx" in output:
        raise SystemExit(f"wrk failed or saw errors:\n{output}")
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output)[1])  # type: ignore[index]
    requests = int(re.search(r"(\d+) requests in", output)[1])  # type: ignore[index]
    p50, p90, p99 = (_ms(output, p) for p in ("50", "90", "99"))
    return Run(rate, p50, p90, p99, seen, requests, spent)


def _ms(output: str, percentile: str) -> float:
    value, unit = re.search(rf"^\s+{percentile}%\s+([\d.]+)(us|ms|s)\s*$", output, re.M).groups()  # type: ignore[union-attr]
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


@contextmanager
def one_large_a_second(port: int, context: ssl.SSLContext, enabled: bool) -> Iterator[None]:
    """While the block runs, one 2.5 MiB OverridePolicy CREATE a second (``--mixed``)."""
    if not enabled:
        yield
        return
    stop = threading.Event()
    body = heavy_override("heavy-mixed")

    def send() -> None:
        while not stop.is_set():
            started = time.monotonic()
            post(port, context, body)
            stop.wait(max(0.0, 1.0 - (time.monotonic() - started)))

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    try:
        yield
    finally:
        stop.set()
        sender.join(timeout=120)


def _servers(args: argparse.Namespace, port: int, pem: Path) -> dict[str, Server]:
    """The floor, then each fedgate to measure (``--threads``, ``--against``)."""
    floor = Server(
        [
            str(BIN / "gunicorn"),
            "--workers",
            "2",
            "--worker-class",
            "asgi",
            "--reuse-port",
            "--keep-alive",
            "75",
            "--bind",
            f"127.0.0.1:{port}",
            "--no-control-socket",
            "--certfile",
            str(pem),
            "--keyfile",
            str(pem),
            "bench.floor_app:create_served_app()",
        ]
    )
    servers: dict[str, Server] = {"floor": floor}
    threads = [int(t) for t in str(args.threads).split(",")]
    for source in [ROOT, *(path.resolve() for path in args.against)]:
        for count in threads:
            name = "fedgate" if source == ROOT else f"fedgate@{source.name}"
            if len(threads) > 1:
                name += f" --threads {count}"
            policies = Path(args.policies)
            servers[name] = Server(
                serve_command(
                    port, count, pem, policies if policies.is_absolute() else source / policies
                ),
                source,
            )
    return servers


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", default="1,8,32")
    parser.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="alternating floor/fedgate rounds; medians are reported (default 5)",
    )
    parser.add_argument(
        "--attempts",
        type=int,
        default=12,
        help="wrk restarts allowed to give fedgate the floor's connection split (1: do not match)",
    )
    parser.add_argument(
        "--each-round",
        action="store_true",
        help="also print every round's numbers (requests/s, p50, p90, p99, split) on stderr",
    )
    parser.add_argument(
        "--threads",
        default="4",
        help="fedgate serve --threads (default 4); a list (1,4) measures each in the same rounds",
    )
    parser.add_argument(
        "--against",
        type=Path,
        action="append",
        default=[],
        help="also measure the fedgate of another checkout (git archive <commit> | tar -x -C "
        "DIR), in the same rounds, against the same floor",
    )
    parser.add_argument(
        "--policies",
        default="policies",
        help="the policies folder fedgate serves (default policies/; a copy with no rules "
        "measures what fedgate costs before any rule)",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="also measure, per request, the server's CPU time and context switches (its "
        "processes' /proc counts) and wrk's CPU time, the floor's against fedgate's: what a "
        "served request costs beyond the instructions bench/instructions.py counts",
    )
    parser.add_argument(
        "--mixed",
        action="store_true",
        help="one 2.5 MiB OverridePolicy CREATE a second beside the small requests",
    )
    return parser.parse_args()


def main() -> None:
    args = _arguments()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    work = Path(tempfile.mkdtemp(prefix="fedgate-bench-"))
    ca = trustme.CA()
    pem = work / "tls.pem"
    ca.issue_cert("127.0.0.1").private_key_and_cert_chain_pem.write_to_path(str(pem))
    pem.chmod(0o600)  # fedgate serve refuses a key every user can read
    context = ssl.create_default_context()
    ca.configure_trust(context)
    port = free_port()
    servers = _servers(args, port, pem)
    fedgates = [name for name in servers if name != "floor"]
    width = 36 if args.mixed else 26  # "PropagationPolicy CREATE + 1 large/s"
    named = max(len(name) for name in fedgates) if len(fedgates) > 1 else 0
    server_column = f"{'server':{named}} " if named else ""
    print(
        f"{'request':{width}} {'conns':>5} {server_column}| {'floor req/s':>11} {'p50':>6} "
        f"{'p99':>6} | {'fedgate req/s':>13} {'p50':>6} {'p99':>6} | {'thru x':>6} {'p99 x':>6}"
    )
    for label, file in REQUESTS.items():
        script = work / f"{file}.lua"
        script.write_text(LUA.format(body=ROOT / "examples" / "requests" / file))
        for connections in (int(c) for c in args.connections.split(",")):
            runs: dict[str, list[Run]] = {name: [] for name in servers}
            ratios: dict[str, list[tuple[float, float]]] = {name: [] for name in fedgates}
            unmatched = dict.fromkeys(fedgates, 0)
            for round_number in range(1, args.rounds + 1):  # alternate: the same machine
                for name, server in servers.items():
                    with running(server, port, context, work / f"{name}.log") as process:
                        wrk(port, script, connections, 2)  # warm-up: imports, TLS sessions
                        split = runs["floor"][-1].split if name != "floor" else None
                        with one_large_a_second(port, context, args.mixed):
                            measured = wrk(
                                port,
                                script,
                                connections,
                                args.duration,
                                split=split,
                                attempts=args.attempts,
                                usage=(lambda: usage_of(process.pid)) if args.cpu else None,
                            )
                        runs[name].append(measured)
                floor_run = runs["floor"][-1]
                for name in fedgates:
                    fedgate_run = runs[name][-1]
                    unmatched[name] += floor_run.split != fedgate_run.split
                    ratios[name].append(
                        (fedgate_run.rate / floor_run.rate, fedgate_run.p99 / floor_run.p99)
                    )
                    if args.each_round:
                        print(
                            f"  round {round_number}: {label}, {connections} connections, "
                            f"{name}: "
                            + "; ".join(
                                f"{who} {run.rate:.0f} req/s p50 {run.p50:.2f} p90 "
                                f"{run.p90:.2f} p99 {run.p99:.2f} ms split "
                                f"{'/'.join(map(str, run.split)) or '?'}"
                                for who, run in (("floor", floor_run), ("fedgate", fedgate_run))
                            )
                            + f"; {ratios[name][-1][0]:.2f}x / {ratios[name][-1][1]:.2f}x",
                            file=sys.stderr,
                            flush=True,
                        )
            fr, f50, f99 = (
                statistics.median(getattr(run, field) for run in runs["floor"])
                for field in ("rate", "p50", "p99")
            )
            shown = f"{label} + 1 large/s" if args.mixed else label
            for name in fedgates:
                gr, g50, g99 = (
                    statistics.median(getattr(run, field) for run in runs[name])
                    for field in ("rate", "p50", "p99")
                )
                thru = statistics.median(r for r, _ in ratios[name])
                tail = statistics.median(p for _, p in ratios[name])
                note = (
                    f"  ({unmatched[name]} of {args.rounds} rounds unmatched splits)"
                    if unmatched[name]
                    else ""
                )
                column = f"{name:{named}} " if named else ""
                print(
                    f"{shown:{width}} {connections:>5} {column}| {fr:11.0f} {f50:6.2f} "
                    f"{f99:6.2f} | {gr:13.0f} {g50:6.2f} {g99:6.2f} | {thru:6.2f} "
                    f"{tail:6.2f}{note}",
                    flush=True,
                )
                if args.cpu:
                    print(_per_request(runs["floor"], runs[name], width + named), flush=True)
    shutil.rmtree(work, ignore_errors=True)


def _per_request(floor: list[Run], fedgate: list[Run], width: int) -> str:
    """``--cpu``'s line: medians over the rounds of what each request cost the server (CPU us
    and context switches) and wrk (CPU us), the floor's against fedgate's."""

    def median(runs: list[Run], part: Callable[[Usage], float]) -> float:
        return statistics.median(
            part(run.usage) / max(run.requests, 1) for run in runs if run.usage is not None
        )

    server = [median(runs, lambda u: u.server_seconds * 1e6) for runs in (floor, fedgate)]
    kernel = [median(runs, lambda u: u.server_system_seconds * 1e6) for runs in (floor, fedgate)]
    switches = [median(runs, lambda u: u.server_switches) for runs in (floor, fedgate)]
    client = [median(runs, lambda u: u.wrk_seconds * 1e6) for runs in (floor, fedgate)]
    return (
        f"{'':{width}}   per request: server CPU us {server[0]:.0f} -> {server[1]:.0f} "
        f"(+{server[1] - server[0]:.0f}; system {kernel[0]:.0f} -> {kernel[1]:.0f}), "
        f"server context switches {switches[0]:.1f} -> "
        f"{switches[1]:.1f}, wrk CPU us {client[0]:.0f} -> {client[1]:.0f}"
    )


if __name__ == "__main__":
    main()

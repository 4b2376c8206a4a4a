"""`make demo`: compile the examples, check them, run the webhook over HTTPS, send every example
request, print each decision on one line, stop the server.

    .venv/bin/python examples/demo.py

Everything happens under build/demo/ (kept for a look afterwards) and on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import trustme
import yaml

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "demo"
BIN = Path(sys.executable).parent
FEDGATE = str(BIN / "fedgate")


def step(title: str, *command: str) -> None:
    print(f"\n== {title}\n$ {' '.join(command)}", flush=True)
    subprocess.run(command, cwd=ROOT, check=True, timeout=120)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(port: int, context: ssl.SSLContext, pem: Path) -> subprocess.Popen[bytes]:
    log = open(WORK / "webhook.log", "wb")  # noqa: SIM115 - lives as long as the server
    command = [
        FEDGATE,
        "serve",
        "--bind",
        f"127.0.0.1:{port}",
        "--certfile",
        str(pem),
        "--keyfile",
        str(pem),
        "--policies",
        "policies",
    ]
    print(f"\n== the webhook, with a fresh dev certificate\n$ {' '.join(command)}", flush=True)
    server = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "FEDGATE_AUDIT_LOG": "1"},
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit((WORK / "webhook.log").read_text())
        try:
            connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=2)
            connection.request("GET", "/readyz")
            if connection.getresponse().status == 200:
                print(f"ready on https://127.0.0.1:{port} (log: {WORK / 'webhook.log'})")
                return server
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the webhook did not become ready in 30 s")


def send_all(port: int, context: ssl.SSLContext) -> int:
    """Every example request over one keep-alive connection; returns how many surprised us."""
    requests = ROOT / "examples" / "requests"
    expected = {
        case["request"]: case["expect"]["allowed"]
        for case in yaml.safe_load((requests / "tests.yaml").read_text())["cases"]
    }
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
    surprises = 0
    print(f"\n== {len(expected)} AdmissionReviews from examples/requests/, over HTTPS\n")
    for name in sorted(expected):
        body = (requests / name).read_bytes()
        connection.request(
            "POST", "/validate", body=body, headers={"Content-Type": "application/json"}
        )
        answer = json.loads(connection.getresponse().read())["response"]
        verdict = "ALLOWED" if answer["allowed"] else "DENIED "
        why = answer.get("status", {}).get("message") or "; ".join(answer.get("warnings", []))
        mark = "" if answer["allowed"] is expected[name] else "  << NOT AS EXPECTED"
        surprises += bool(mark)
        print(f"{verdict} {name[:-5]:52} {why[:110]}{mark}")
    connection.close()
    return surprises


def main() -> int:
    argparse.ArgumentParser(description=__doc__).parse_args()
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    out = str(WORK / "rendered")
    step("compile the example apps", FEDGATE, "compile", "examples/apps", "--out", out, "--verbose")
    step(
        "check: the rendered tree is what the specs say",
        FEDGATE,
        "compile",
        "examples/apps",
        "--out",
        out,
        "--check",
    )
    step("the policy suites", FEDGATE, "test")
    ca = trustme.CA()
    pem = WORK / "tls.pem"
    ca.issue_cert("127.0.0.1", "localhost").private_key_and_cert_chain_pem.write_to_path(str(pem))
    pem.chmod(0o600)  # fedgate serve refuses a key every user can read
    context = ssl.create_default_context()
    ca.configure_trust(context)
    port = free_port()
    server = start_server(port, context, pem)
    try:
        surprises = send_all(port, context)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
        print("\n== the webhook stopped")
    audit = [
        line for line in (WORK / "webhook.log").read_text().splitlines() if line.startswith("{")
    ]
    print(f"{len(audit)} audit lines in {WORK / 'webhook.log'}, e.g.\n{audit[-1] if audit else ''}")
    return 1 if surprises else 0


if __name__ == "__main__":
    raise SystemExit(main())

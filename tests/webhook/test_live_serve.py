"""`fedgate serve --kubeconfig` against a fake Karmada API server on 127.0.0.1: /readyz is 503
until the first lists are in, then the webhook judges with what the API server holds (a
policy made by hand, never in Git, makes a tenant's second policy for its template a
takeover), and /metrics shows what each kind holds."""

from __future__ import annotations

import base64
import http.server
import json
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trustme
import yaml

from tests.webhook.livecase import hand_made, policy
from tests.webhook.server import serving

pytestmark = pytest.mark.slow  # starts fedgate serve

REPO = Path(__file__).resolve().parents[2]
HELD = {
    "/apis/apps/v1/deployments": [hand_made("hand-made")],
    "/apis/policy.karmada.io/v1alpha1/propagationpolicies": [policy("by-hand", "hand-made")],
}


class FakeKarmada(http.server.BaseHTTPRequestHandler):
    """Lists answered once ``listing`` is set (HELD, else nothing); watches stay open, quiet,
    until ``stopping`` is set."""

    protocol_version = "HTTP/1.1"
    listing: threading.Event
    stopping: threading.Event

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        if "watch=1" in url.query:
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            self.stopping.wait(30)
            self.wfile.write(b"0\r\n\r\n")
            return
        self.listing.wait(30)
        body = json.dumps({"items": HELD.get(url.path, []), "metadata": {"resourceVersion": "9"}})
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())


@dataclass
class Karmada:
    config: Path
    """A kubeconfig of the fake API server."""
    listing: threading.Event
    """Set: its lists answer."""
    stop: Callable[[], None]
    """The API server goes away: watches end, connections are refused."""


@pytest.fixture
def karmada(tmp_path: Path) -> Iterator[Karmada]:
    ca = trustme.CA()
    listing, stopping = threading.Event(), threading.Event()
    handler = type("Handler", (FakeKarmada,), {"listing": listing, "stopping": stopping})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    config = tmp_path / "karmada.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "clusters": [
                    {
                        "name": "k",
                        "cluster": {
                            "server": f"https://127.0.0.1:{server.server_address[1]}",
                            "certificate-authority-data": base64.b64encode(
                                ca.cert_pem.bytes()
                            ).decode(),
                        },
                    }
                ],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}],
                "current-context": "c",
            }
        )
    )

    def stop() -> None:
        if not stopping.is_set():
            listing.set()
            stopping.set()
            server.shutdown()
            server.server_close()
            thread.join(5)

    try:
        yield Karmada(config, listing, stop)
    finally:
        stop()


def review_of_second_policy() -> dict[str, Any]:
    return {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "u-1",
            "kind": {
                "group": "policy.karmada.io",
                "version": "v1alpha1",
                "kind": "PropagationPolicy",
            },
            "resource": {
                "group": "policy.karmada.io",
                "version": "v1alpha1",
                "resource": "propagationpolicies",
            },
            "operation": "CREATE",
            "namespace": "platform-demo",
            "name": "mine-too",
            "userInfo": {"username": "alice@example.com", "groups": ["team-a"]},
            "object": policy("mine-too", "hand-made"),
        },
    }


def test_serve_judges_with_what_the_karmada_api_server_holds(
    tmp_path: Path, karmada: Karmada
) -> None:
    config, listing = karmada.config, karmada.listing
    with serving(
        tmp_path, REPO / "policies", workers=1, args=["--kubeconfig", str(config)], wait_ready=False
    ) as server:
        status, body = server.request("GET", "/readyz")
        assert status == 503 and isinstance(body, dict)
        assert body["status"] == "waiting for the live index"
        listing.set()
        deadline = time.monotonic() + 10
        while server.request("GET", "/readyz")[0] != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.request("GET", "/readyz")[0] == 200
        status, answer = server.review(review_of_second_policy())
        assert status == 200 and isinstance(answer, dict)
        message = answer["response"]["status"]["message"]
        assert "[tenancy.takeover]" in message
        assert "PropagationPolicy platform-demo/by-hand (made outside Git) propagates" in message
        _, metrics = server.request("GET", "/metrics")
        assert 'fedgate_index_objects{kind="PropagationPolicy"} 1.0' in str(metrics)
        assert "fedgate_index_waiting 0.0" in str(metrics)


def test_serve_fails_closed_once_the_watch_is_down_past_the_bound(
    tmp_path: Path, karmada: Karmada
) -> None:
    karmada.listing.set()
    args = ["--kubeconfig", str(karmada.config), "--index-stale-seconds", "1"]
    with serving(tmp_path, REPO / "policies", workers=1, args=args) as server:
        karmada.stop()
        deadline, message = time.monotonic() + 15, ""
        while time.monotonic() < deadline:
            _, answer = server.review(review_of_second_policy())
            assert isinstance(answer, dict)
            message = answer["response"].get("status", {}).get("message", "")
            if "is stale" in message:
                break
            time.sleep(0.2)
        assert (
            "[tenancy.takeover] the webhook's live index of the Karmada API server is stale (its "
            "watch of " in message
        ), message
        assert "has been down for" in message and "more than 1 s" in message
        _, metrics = server.request("GET", "/metrics")
        assert "fedgate_index_stale 1.0" in str(metrics)


def test_serve_audits_what_the_live_index_holds_every_period(
    tmp_path: Path, karmada: Karmada, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--audit-seconds: one worker of two judges every object the live index holds against
    the bundle, each period, and /metrics (any worker's) says what it found."""
    latest = hand_made("unpinned")
    latest["spec"]["template"]["spec"]["containers"][0]["image"] = (
        "registry.example.com/platform/demo-http:latest"
    )
    monkeypatch.setitem(HELD, "/apis/apps/v1/deployments", [hand_made("hand-made"), latest])
    karmada.listing.set()
    args = ["--kubeconfig", str(karmada.config), "--audit-seconds", "10"]
    with serving(tmp_path, REPO / "policies", workers=2, args=args) as server:
        found, deadline = "", time.monotonic() + 40
        while time.monotonic() < deadline:
            found = str(server.request("GET", "/metrics")[1])
            if "fedgate_audit_runs_total" in found and "fedgate_audit_objects 3.0" in found:
                break
            time.sleep(0.5)
        assert (
            'fedgate_audit_violations{namespace="platform-demo",rule="image-tag"} 1.0' in (found)
            or 'fedgate_audit_violations{rule="image-tag",namespace="platform-demo"} 1.0' in found
        )
        assert "fedgate_audit_objects 3.0" in found
    lines = [line for line in server.output().splitlines() if "background audit:" in line]
    assert lines and all("3 objects, 1 would be denied" in line for line in lines), lines

"""The live index's API client: kubeconfigs read as kubectl reads them (or refused, saying
why), and list (paged) and watch over TLS against a fake API server on 127.0.0.1."""

from __future__ import annotations

import base64
import http.server
import json
import ssl
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme
import yaml

from webhook.base.errors import UsageError
from webhook.shell.kubeapi import (
    ApiError,
    ApiServer,
    Credentials,
    Gone,
    from_kubeconfig,
    in_cluster,
)


def kubeconfig(tmp_path: Path, user: dict[str, Any], cluster: dict[str, Any]) -> Path:
    path = tmp_path / "config"
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "k", "cluster": cluster}],
                "users": [{"name": "u", "user": user}],
                "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}],
                "current-context": "c",
            }
        )
    )
    return path


def test_a_kubeconfig_with_inline_data_and_a_token(tmp_path: Path) -> None:
    ca = base64.b64encode(b"CA PEM").decode()
    path = kubeconfig(
        tmp_path,
        {"token": "s3cret"},
        {"server": "https://127.0.0.1:6443/", "certificate-authority-data": ca},
    )
    found = from_kubeconfig(path)
    assert found == Credentials(server="https://127.0.0.1:6443", ca_data=b"CA PEM", token="s3cret")


def test_a_kubeconfig_with_files_relative_to_it(tmp_path: Path) -> None:
    for name in ("ca.crt", "client.crt", "client.key", "token"):
        (tmp_path / name).write_text(name)
    path = kubeconfig(
        tmp_path,
        {"client-certificate": "client.crt", "client-key": "client.key", "tokenFile": "token"},
        {"server": "https://k:6443", "certificate-authority": "ca.crt"},
    )
    found = from_kubeconfig(path)
    assert (found.ca_data, found.cert_pem) == (b"ca.crt", b"client.crt")
    assert found.key_pem == b"client.key"
    assert found.bearer() == "token"  # read from the file, on every request


@pytest.mark.parametrize(
    ("user", "cluster", "message"),
    [
        ({"exec": {"command": "aws"}}, {"server": "https://k"}, "exec and auth-provider"),
        ({"token": "t"}, {"server": "http://k"}, "must be an https:// URL"),
    ],
)
def test_kubeconfigs_fedgate_cannot_use_are_refused(
    tmp_path: Path, user: dict[str, Any], cluster: dict[str, Any], message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        from_kubeconfig(kubeconfig(tmp_path, user, cluster))


def test_a_context_that_names_nothing_is_refused(tmp_path: Path) -> None:
    path = kubeconfig(tmp_path, {"token": "t"}, {"server": "https://k"})
    with pytest.raises(UsageError, match="names context 'other'"):
        from_kubeconfig(path, "other")


def test_in_cluster_reads_the_service_account() -> None:
    found = in_cluster({"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"})
    assert found.server == "https://[fd00::1]:443"
    assert found.token_file == "/var/run/secrets/kubernetes.io/serviceaccount/token"
    with pytest.raises(UsageError, match="not in a pod"):
        in_cluster({})


class FakeApiServer(http.server.BaseHTTPRequestHandler):
    """Two pages of deployments; a watch that sends a bookmark and an event, chunked; 410 for
    a watch from version "0"."""

    protocol_version = "HTTP/1.1"
    seen: list[dict[str, Any]]  # set on the class by the fixture

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        self.seen.append({"path": url.path, **query, "auth": self.headers.get("Authorization")})
        if query.get("watch"):
            if query["resourceVersion"] == "0":
                return self._send(410, {"kind": "Status", "code": 410, "message": "too old"})
            return self._stream(
                [
                    {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "7"}}},
                    {"type": "ADDED", "object": {"metadata": {"name": "c"}}},
                ]
            )
        if "continue" not in query:
            return self._send(
                200, {"items": [{"metadata": {"name": "a"}}], "metadata": {"continue": "p2"}}
            )
        return self._send(
            200, {"items": [{"metadata": {"name": "b"}}], "metadata": {"resourceVersion": "5"}}
        )

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, events: list[dict[str, Any]]) -> None:
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for event in events:
            line = json.dumps(event).encode() + b"\n"
            self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[ApiServer, list[dict[str, Any]]]]:
    ca = trustme.CA()
    leaf = ca.issue_cert("127.0.0.1")
    seen: list[dict[str, Any]] = []
    handler = type("Handler", (FakeApiServer,), {"seen": seen})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    leaf.configure_cert(context)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        credentials = Credentials(
            server=f"https://127.0.0.1:{server.server_address[1]}",
            ca_data=ca.cert_pem.bytes(),
            token="t0ken",
        )
        yield ApiServer(credentials), seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_list_follows_continue_tokens(api: tuple[ApiServer, list[dict[str, Any]]]) -> None:
    client, seen = api
    items, version = client.list("/apis/apps/v1/deployments")
    assert [i["metadata"]["name"] for i in items] == ["a", "b"] and version == "5"
    assert [s.get("continue") for s in seen] == [None, "p2"]
    assert seen[0]["limit"] == "500" and seen[0]["auth"] == "Bearer t0ken"


def test_a_list_keeps_what_it_is_told_of_each_object_of_every_page(
    api: tuple[ApiServer, list[dict[str, Any]]],
) -> None:
    client, _ = api
    items, _ = client.list("/apis/apps/v1/deployments", lambda o: {"n": o["metadata"]["name"]})
    assert items == [{"n": "a"}, {"n": "b"}]


def test_watch_streams_events_with_bookmarks_asked_for(
    api: tuple[ApiServer, list[dict[str, Any]]],
) -> None:
    client, seen = api
    events = list(client.watch("/apis/apps/v1/deployments", "5", 60))
    assert [e["type"] for e in events] == ["BOOKMARK", "ADDED"]
    assert seen[0]["allowWatchBookmarks"] == "true" and seen[0]["resourceVersion"] == "5"
    assert seen[0]["timeoutSeconds"] == "60"


def test_a_410_answer_is_gone(api: tuple[ApiServer, list[dict[str, Any]]]) -> None:
    client, _ = api
    with pytest.raises(Gone, match="410"):
        client.watch("/apis/apps/v1/deployments", "0", 60)


def test_an_unreachable_server_is_an_api_error() -> None:
    client = ApiServer(Credentials(server="https://127.0.0.1:1"))
    with pytest.raises(ApiError, match="GET /api/v1/namespaces"):
        client.list("/api/v1/namespaces")

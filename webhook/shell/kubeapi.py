"""A small client of the Kubernetes API: list and watch, over the kubeconfig's TLS. A shell.

Chosen over the official ``kubernetes`` client, ``kubernetes_asyncio``, ``lightkube`` and
``kr8s`` deliberately. The live index needs two calls (a paged list, a watch with
``resourceVersion`` and bookmarks) of raw JSON: the engine reads plain dicts, so a client that
builds typed models (the official one, lightkube) would double the memory of 10,000 templates
and convert them back. fedgate's workers review on threads (``webhook/shell/server.py``), and the
watch runs on threads of its own, so an asyncio client (kubernetes_asyncio, kr8s) would need a
second event loop beside gunicorn's for nothing. Bookmarks and 410 Gone are the watch's whole
protocol here, handled in ``webhook/shell/watch.py`` where they are tested; the official client's
``Watch`` hides them behind its own retry. And no new dependency (with urllib3, aiohttp or
httpx under it) enters the admission path. The cost: kubeconfig ``exec`` credential plugins
and ``auth-provider`` are not supported (a certificate, a token, a token file, or the pod's
service account are; the Karmada API server's kubeconfig Secret carries one of those).
"""

from __future__ import annotations

import base64
import http.client
import os
import ssl
import tempfile
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import yaml

from webhook.base.errors import UsageError

SERVICE_ACCOUNT = Path("/var/run/secrets/kubernetes.io/serviceaccount")
PAGE = 500
"""Objects per page of a list."""
CONNECT_SECONDS = 10.0
"""Longest wait to connect, or for a list's answer."""


Keep = Callable[[dict[str, Any]], dict[str, Any]]
"""What a list keeps of each object it reads."""


def whole(obj: dict[str, Any]) -> dict[str, Any]:
    """The object as the API server sent it."""
    return obj


class ApiError(OSError):
    """The API server could not be reached or answered other than 200."""


class Gone(ApiError):
    """410 Gone: the resourceVersion is too old; list again."""


class NotFound(ApiError):
    """404 Not Found: no such object (or collection: its namespace does not exist)."""


@dataclass(frozen=True)
class Credentials:
    """Where the API server is and how to prove who we are to it."""

    server: str
    ca_file: str | None = None
    ca_data: bytes | None = None
    cert_pem: bytes | None = None
    key_pem: bytes | None = None
    token: str | None = None
    token_file: str | None = None
    """Read again on every request (a projected service account token rotates)."""
    insecure: bool = False

    def bearer(self) -> str | None:
        if self.token_file:
            return Path(self.token_file).read_text().strip()
        return self.token


def _data(entry: Mapping[str, Any], key: str, base: Path) -> bytes | None:
    """``key-data`` (base64) or the file ``key`` (relative to the kubeconfig) of an entry."""
    data = entry.get(f"{key}-data")
    if isinstance(data, str) and data:
        return base64.b64decode(data)
    path = entry.get(key)
    if isinstance(path, str) and path:
        return (base / path).read_bytes()
    return None


def _named(config: Mapping[str, Any], section: str, name: str, what: str) -> Mapping[str, Any]:
    for entry in config.get(section) or ():
        if isinstance(entry, dict) and entry.get("name") == name:
            found = entry.get(what)
            if isinstance(found, dict):
                return found
    raise UsageError(f"the kubeconfig names {what} {name!r}, which it does not define")


def from_kubeconfig(path: Path, context: str | None = None) -> Credentials:
    """The credentials of ``context`` (the current one when None) of a kubeconfig file."""
    try:
        config = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise UsageError(f"--kubeconfig {path}: {exc}") from None
    if not isinstance(config, dict):
        raise UsageError(f"--kubeconfig {path}: not a kubeconfig")
    name = context or config.get("current-context")
    if not isinstance(name, str) or not name:
        raise UsageError(f"--kubeconfig {path}: no current-context")
    ctx = _named(config, "contexts", name, "context")
    cluster = _named(config, "clusters", str(ctx.get("cluster")), "cluster")
    user = _named(config, "users", str(ctx.get("user")), "user")
    if "exec" in user or "auth-provider" in user:
        raise UsageError(
            f"--kubeconfig {path}: exec and auth-provider credentials are not supported; "
            "give a client certificate, a token or a tokenFile"
        )
    base = path.parent
    server = cluster.get("server")
    if not isinstance(server, str) or not server.startswith("https://"):
        raise UsageError(f"--kubeconfig {path}: the cluster's server must be an https:// URL")
    ca = _data(cluster, "certificate-authority", base)
    token_file = user.get("tokenFile")
    return Credentials(
        server=server.rstrip("/"),
        ca_data=ca,
        cert_pem=_data(user, "client-certificate", base),
        key_pem=_data(user, "client-key", base),
        token=user.get("token") if isinstance(user.get("token"), str) else None,
        token_file=str(base / token_file) if isinstance(token_file, str) else None,
        insecure=bool(cluster.get("insecure-skip-tls-verify")),
    )


def in_cluster(environ: Mapping[str, str] | None = None) -> Credentials:
    """The pod's service account, as client-go's rest.InClusterConfig reads it."""
    env = os.environ if environ is None else environ
    host, port = env.get("KUBERNETES_SERVICE_HOST"), env.get("KUBERNETES_SERVICE_PORT")
    if not host or not port:
        raise UsageError("--in-cluster: KUBERNETES_SERVICE_HOST/PORT are not set (not in a pod?)")
    host = f"[{host}]" if ":" in host else host
    return Credentials(
        server=f"https://{host}:{port}",
        ca_file=str(SERVICE_ACCOUNT / "ca.crt"),
        token_file=str(SERVICE_ACCOUNT / "token"),
    )


def ssl_context(credentials: Credentials) -> ssl.SSLContext:
    context = ssl.create_default_context(
        cafile=credentials.ca_file,
        cadata=credentials.ca_data.decode() if credentials.ca_data else None,
    )
    if credentials.insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if credentials.cert_pem and credentials.key_pem:
        # ssl loads a certificate chain from files only: a private directory, gone at once
        with tempfile.TemporaryDirectory(prefix="fedgate-kube-") as directory:
            pem = Path(directory) / "client.pem"
            pem.touch(mode=0o600)
            pem.write_bytes(credentials.key_pem + b"\n" + credentials.cert_pem)
            context.load_cert_chain(str(pem))
    return context


class ApiServer:
    """list and watch of collections, raw JSON, one HTTPS connection per call."""

    def __init__(self, credentials: Credentials) -> None:
        self.credentials = credentials
        self.context = ssl_context(credentials)
        parsed = urllib.parse.urlsplit(credentials.server)
        self.host, self.port = parsed.hostname or "", parsed.port or 443
        self.prefix = parsed.path.rstrip("/")

    def _open(self, path: str, query: Mapping[str, str], seconds: float) -> _Answer:
        """The 200 answer to a GET."""
        connection = http.client.HTTPSConnection(
            self.host, self.port, context=self.context, timeout=seconds
        )
        headers = {"Accept": "application/json", "User-Agent": "fedgate-live-index"}
        token = self.credentials.bearer()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        target = f"{self.prefix}{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        try:
            connection.request("GET", target, headers=headers)
            response = connection.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            connection.close()
            raise ApiError(f"GET {path}: {exc}") from None
        if response.status != 200:
            body = response.read(4096).decode(errors="replace")
            connection.close()
            error = {410: Gone, 404: NotFound}.get(response.status, ApiError)
            raise error(f"GET {path}: {response.status} {body.strip()[:300]}")
        return _Answer(connection, response)

    def _json(self, path: str, query: Mapping[str, str]) -> dict[str, Any]:
        """The JSON object a GET answers (read whole, the connection closed)."""
        response = self._open(path, query, CONNECT_SECONDS)
        try:
            found = orjson.loads(response.read())
        except (OSError, http.client.HTTPException, orjson.JSONDecodeError) as exc:
            raise ApiError(f"GET {path}: {exc}") from None
        finally:
            response.close()
        if not isinstance(found, dict):
            raise ApiError(f"GET {path}: not an object")
        return found

    def get(self, path: str) -> dict[str, Any]:
        """One object (raises ``NotFound`` when there is none)."""
        return self._json(path, {})

    def list(self, path: str, keep: Keep = whole) -> tuple[list[dict[str, Any]], str]:
        """Every object of a collection (paged), as ``keep`` makes it (each page's objects
        taken in before the next page is read, so that only a page is ever held whole), and
        the list's resourceVersion."""
        items: list[dict[str, Any]] = []
        query = {"limit": str(PAGE)}
        while True:
            page = self._json(path, query)
            items.extend(keep(item) for item in page.pop("items", None) or ())
            metadata = page.get("metadata") or {}
            token = metadata.get("continue")
            if not token:
                return items, str(metadata.get("resourceVersion", ""))
            query = {"limit": str(PAGE), "continue": token}

    def watch(self, path: str, resource_version: str, seconds: int) -> Iterator[dict[str, Any]]:
        """The events of a watch from ``resource_version``, bookmarks asked for, ended by the
        API server after about ``seconds``. Connects before it returns (raising ``Gone`` or
        ``ApiError``); the events are read as they are iterated."""
        query = {
            "watch": "1",
            "allowWatchBookmarks": "true",
            "resourceVersion": resource_version,
            "timeoutSeconds": str(seconds),
        }
        return _events(path, self._open(path, query, seconds + CONNECT_SECONDS))


class _Answer:
    """A 200 answer being read; closing it closes its connection."""

    def __init__(self, connection: http.client.HTTPConnection, response: Any) -> None:
        self.connection, self.response = connection, response

    def read(self) -> bytes:
        return bytes(self.response.read())

    def readline(self) -> bytes:
        return bytes(self.response.readline())

    def close(self) -> None:
        self.response.close()
        self.connection.close()


def _events(path: str, response: _Answer) -> Iterator[dict[str, Any]]:
    try:
        while True:
            try:
                line = response.readline()
            except (OSError, http.client.HTTPException) as exc:
                raise ApiError(f"watch {path}: {exc}") from None
            if not line:
                return
            if line.strip():
                try:
                    event = orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    raise ApiError(f"watch {path}: {exc}") from None
                yield event
    finally:
        response.close()

"""Kubernetes' URL library (apiserver/pkg/cel/library/urls.go) with Go's ``net/url`` rules:
``url()`` accepts what ``url.ParseRequestURI`` accepts (an absolute URI or an absolute path)
and reads it as ``url.Parse`` does (the fragment apart)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import unquote

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_HEX = re.compile(r"%[0-9A-Fa-f]{2}")
_UNRESERVED = re.compile(r"[A-Za-z0-9\-_.~]")
_PATH_KEPT = set("$&+,/:;=@")
_VALID_ENCODED = set("!$&'()*+,;=:@[]")


class URLError(ValueError):
    """Not a URL as Kubernetes reads them."""


@dataclass(frozen=True)
class URL:
    """``kubernetes.URL``: its text and the parts Go's ``url.Parse`` finds."""

    text: str
    scheme: str
    host: str
    path: str
    raw_path: str
    raw_query: str


_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r"}
_GO_ESCAPES |= {"\t": "\\t", "\v": "\\v", "\\": "\\\\", '"': '\\"'}


def go_quote(text: str) -> str:
    """Go's ``%q`` of a string (``strconv.Quote``): double quotes, Go's escapes, printable
    characters as they are."""
    out = []
    for char in text:
        code = ord(char)
        if char in _GO_ESCAPES:
            out.append(_GO_ESCAPES[char])
        elif char.isprintable() and not 0xD800 <= code <= 0xDFFF:
            out.append(char)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


@lru_cache(maxsize=1024)
def parse_request_uri(text: str) -> URL:
    """Go's ``url.ParseRequestURI``, its errors as Go words them (``parse "x": ...``)."""
    where = f"parse {go_quote(text)}"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        raise URLError(f"{where}: net/url: invalid control character in URL")
    if text == "":
        raise URLError(f"{where}: empty url")
    return _parse(text, where, request=True)


@lru_cache(maxsize=1024)
def parse(text: str) -> URL:
    """Kubernetes' ``url()``: what ParseRequestURI accepts (the fragment included), read as
    ``url.Parse`` reads it (the fragment apart)."""
    try:
        parse_request_uri(text)
    except URLError as exc:
        raise URLError(f"URL parse error during conversion from string: {exc}") from None
    return _parse(text.split("#", 1)[0], "", request=False)


def _parse(text: str, where: str, *, request: bool) -> URL:
    if text == "*":
        return URL(text, "", "", "*", "", "")
    scheme, rest = "", text
    found = _SCHEME.match(text)
    if found and text[found.end() : found.end() + 1] == ":":
        scheme, rest = found.group(0).lower(), text[found.end() + 1 :]
    elif text.startswith(":"):
        raise URLError(f"{where}: missing protocol scheme")
    rest, _, query = rest.partition("?")
    if not rest.startswith("/"):
        if request:
            raise URLError(f"{where}: invalid URI for request")
        if scheme:
            return URL(text, scheme, "", "", "", query)
    host = ""
    if (scheme or not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path
        host = _host(authority.rpartition("@")[2], where)
    path = _unescape(rest, where)
    return URL(text, scheme, host, path, rest, query)


def _host(host: str, where: str) -> str:
    if host.startswith("["):
        close = host.find("]")
        if close < 0:
            raise URLError(f"{where}: missing ']' in host")
        port = host[close + 1 :]
        if not _valid_port(port):
            raise URLError(f"{where}: invalid port {go_quote(port)} after host")
        return host
    colon = host.rfind(":")
    if colon >= 0 and not _valid_port(host[colon:]):
        raise URLError(f"{where}: invalid port {go_quote(host[colon:])} after host")
    return _unescape(host, where)


def _valid_port(port: str) -> bool:
    return port == "" or ((port.startswith(":") and port[1:].isdigit()) or port == ":")


def _unescape(text: str, where: str) -> str:
    for index, char in enumerate(text):
        if char == "%" and not _HEX.match(text, index):
            raise URLError(f"{where}: invalid URL escape {go_quote(text[index : index + 3])}")
    return unquote(text)


def hostname(url: URL) -> str:
    host = url.host
    if host.startswith("["):
        return host[1 : host.find("]")]
    colon = host.rfind(":")
    return host[:colon] if colon >= 0 and _valid_port(host[colon:]) else host


def port(url: URL) -> str:
    host = url.host
    if host.startswith("["):
        host = host[host.find("]") + 1 :]
    colon = host.rfind(":")
    return host[colon + 1 :] if colon >= 0 and host[colon + 1 :].isdigit() else ""


def escaped_path(url: URL) -> str:
    """Go's EscapedPath: the path as written when that is a valid encoding of it, else the
    path escaped."""
    raw = url.raw_path
    if all(_UNRESERVED.match(c) or c in _VALID_ENCODED or c in _PATH_KEPT or c == "%" for c in raw):
        return raw
    return "".join(
        c if _UNRESERVED.match(c) or c in _PATH_KEPT else "".join(f"%{b:02X}" for b in c.encode())
        for c in url.path
    )


def query(url: URL) -> dict[str, list[str]]:
    """Go's ParseQuery: ``&``-separated pairs, ``+`` a space; a pair with ``;`` or a bad
    escape is dropped."""
    found: dict[str, list[str]] = {}
    for pair in url.raw_query.split("&"):
        if not pair or ";" in pair:
            continue
        key, _, value = pair.partition("=")
        try:
            key, value = _query_unescape(key), _query_unescape(value)
        except URLError:
            continue
        found.setdefault(key, []).append(value)
    return found


def _query_unescape(text: str) -> str:
    for index, char in enumerate(text):
        if char == "%" and not _HEX.match(text, index):
            raise URLError("invalid escape")
    return unquote(text.replace("+", " "))


def is_url(text: str) -> bool:
    try:
        parse(text)
    except URLError:
        return False
    return True

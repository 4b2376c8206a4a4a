"""Kubernetes' URL library (apiserver/pkg/cel/library/urls.go) with Go's ``net/url`` rules:
``url()`` accepts what ``url.ParseRequestURI`` accepts (an absolute URI or an absolute path)
and reads it as ``url.Parse`` does (the fragment apart)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import unquote

from webhook.engine.cel import netlib
from webhook.engine.cel.goquote import go_quote

_HEX = re.compile(r"%[0-9A-Fa-f]{2}")


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


@lru_cache(maxsize=1024)
def parse_request_uri(text: str) -> URL:
    """Go's ``url.ParseRequestURI``, its errors as Go words them (``parse "x": ...``)."""
    return _parse(text, f"parse {go_quote(text)}", request=True)


@lru_cache(maxsize=1024)
def parse(text: str) -> URL:
    """Kubernetes' ``url()``: what ParseRequestURI accepts (the fragment included), read as
    ``url.Parse`` reads it (the fragment apart, and an error where it is badly escaped)."""
    try:
        parse_request_uri(text)
        head, _, fragment = text.partition("#")
        where = f"parse {go_quote(text)}"
        found = _parse(head, where, request=False)
        _unescape(fragment, where, _FRAGMENT)
    except URLError as exc:
        raise URLError(f"URL parse error during conversion from string: {exc}") from None
    return found


_MAX_QUERY_PARAMETERS = 10_000
"""Go's ``defaultMaxParams``: a query of more parameters is not read."""
_PATH, _HOST, _ZONE, _USER, _FRAGMENT = "path", "host", "zone", "user", "fragment"
"""Go's ``encoding`` modes that parsing unescapes with."""


def _parse(text: str, where: str, *, request: bool) -> URL:
    """Go's ``net/url.parse`` (Go 1.26): ``request`` is ``viaRequest``."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        raise URLError(f"{where}: net/url: invalid control character in URL")
    if text == "" and request:
        raise URLError(f"{where}: empty url")
    if text == "*":
        return URL(text, "", "", "*", "", "")
    scheme, rest = _scheme(text, where)
    if rest.endswith("?") and rest.count("?") == 1:
        rest, query = rest[:-1], ""
    else:
        rest, _, query = rest.partition("?")
    if not rest.startswith("/"):
        if scheme:
            return URL(text, scheme, "", "", "", query)  # opaque: a rootless path
        if request:
            raise URLError(f"{where}: invalid URI for request")
        if ":" in rest.partition("/")[0]:
            raise URLError(f"{where}: first path segment in URL cannot contain colon")
    host = ""
    if (scheme or (not request and not rest.startswith("///"))) and rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path
        host = _authority(scheme, authority, where)
    path = _unescape(rest, where, _PATH)
    return URL(text, scheme, host, path, rest, query)


def _scheme(text: str, where: str) -> tuple[str, str]:
    """Go's ``getScheme``: the scheme (lower case) and the rest, or no scheme."""
    for index, char in enumerate(text):
        if "a" <= char <= "z" or "A" <= char <= "Z":
            continue
        if "0" <= char <= "9" or char in "+-.":
            if index == 0:
                return "", text
            continue
        if char == ":":
            if index == 0:
                raise URLError(f"{where}: missing protocol scheme")
            return text[:index].lower(), text[index + 1 :]
        return "", text
    return "", text


_USERINFO = frozenset("-._:~!$&'()*+,;=%@")


def _authority(scheme: str, authority: str, where: str) -> str:
    """Go's ``parseAuthority``: the host; the user information checked, not kept."""
    user, at, host_text = authority.rpartition("@")
    host = _host(scheme, host_text, where)
    if at:
        if not all(c.isascii() and (c.isalnum() or c in _USERINFO) for c in user):
            raise URLError(f"{where}: net/url: invalid userinfo")
        for part in user.split(":", 1):
            _unescape(part, where, _USER)
    return host


def _host(scheme: str, host: str, where: str) -> str:
    """Go's ``parseHost``: an IP literal in brackets, or a name with an optional port."""
    open_at = host.rfind("[")
    if open_at > 0:
        raise URLError(f"{where}: invalid IP-literal")
    if open_at == 0:
        close = host.rfind("]")
        if close < 0:
            raise URLError(f"{where}: missing ']' in host")
        port = host[close + 1 :]
        if not _valid_port(port):
            raise URLError(f"{where}: invalid port {go_quote(port)} after host")
        port = _unescape(port, where, _HOST)
        name = host[1:close]
        zone_at = name.find("%25")
        if zone_at >= 0:
            name = _unescape(name[:zone_at], where, _HOST) + _unescape(name[zone_at:], where, _ZONE)
        else:
            name = _unescape(name, where, _HOST)
        try:
            address = netlib.go_parse_addr(name)
        except ValueError as exc:
            raise URLError(f"{where}: invalid host: {exc}") from None
        if address is not None and address.version == 4:
            raise URLError(f"{where}: invalid IP-literal")
        return f"[{name}]{port}"
    # the port after the last colon, as Kubernetes' Go reads it (Go 1.26's strict colons for
    # http and https are a GODEBUG a module declaring an older Go keeps off)
    colon = host.rfind(":")
    if colon >= 0 and not _valid_port(host[colon:]):
        raise URLError(f"{where}: invalid port {go_quote(host[colon:])} after host")
    return _unescape(host, where, _HOST)


def _valid_port(port: str) -> bool:
    """Go's ``validOptionalPort``: empty, or a colon and ASCII digits."""
    return port == "" or (port[0] == ":" and all("0" <= c <= "9" for c in port[1:]))


_HOST_ALLOWED = frozenset("!$&'()*+,;=:[]<>\"-_.~")


def _host_escapes(char: str) -> bool:
    """Go's ``shouldEscape`` in host (and zone) mode, for an ASCII character."""
    return not (char.isascii() and (char.isalnum() or char in _HOST_ALLOWED))


def _unescape(text: str, where: str, mode: str) -> str:
    """Go's ``unescape``: every ``%`` two hex digits (in a host only for bytes beyond ASCII,
    and ``%25``; in a zone only for what a host may hold), a host's ASCII as a host allows;
    the bytes decoded as UTF-8."""
    index = 0
    while index < len(text):
        char = text[index]
        if char == "%":
            code = text[index : index + 3]
            if not _HEX.fullmatch(code):
                raise URLError(f"{where}: invalid URL escape {go_quote(code)}")
            value = int(code[1:], 16)
            if mode == _HOST and value < 0x80 and code != "%25":
                raise URLError(f"{where}: invalid URL escape {go_quote(code)}")
            if mode == _ZONE and code != "%25" and value != 0x20 and _host_escapes(chr(value)):
                raise URLError(f"{where}: invalid URL escape {go_quote(code)}")
            index += 3
            continue
        if mode in (_HOST, _ZONE) and char.isascii() and _host_escapes(char):
            raise URLError(f"{where}: invalid character {go_quote(char)} in host name")
        index += 1
    if "%" not in text:
        return text
    errors = "surrogateescape" if mode == _PATH else "replace"
    return unquote(text, errors=errors)


def _split_host_port(host: str) -> tuple[str, str]:
    """Go's ``splitHostPort``: a valid port after the last colon apart, brackets off."""
    port_text = ""
    colon = host.rfind(":")
    if colon >= 0 and _valid_port(host[colon:]):
        host, port_text = host[:colon], host[colon + 1 :]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port_text


def hostname(url: URL) -> str:
    return _split_host_port(url.host)[0]


def port(url: URL) -> str:
    return _split_host_port(url.host)[1]


_PATH_ALLOWED = frozenset("-_.~$&+,/:;=@")
"""What Go's ``shouldEscape`` leaves as it is in a path, besides ASCII letters and digits."""
_ENCODED_ALLOWED = _PATH_ALLOWED | frozenset("!'()*[]%")
"""What Go's ``validEncoded`` accepts in a path as written."""


def escaped_path(url: URL) -> str:
    """Go's EscapedPath: the path as written when that is a valid encoding of it, else the
    path escaped (``*`` as it is)."""
    if url.path == "*":
        return "*"
    raw = url.raw_path
    if all(c.isascii() and (c.isalnum() or c in _ENCODED_ALLOWED) for c in raw):
        return raw  # Go keeps it as RawPath, or escaping the path gives it again
    return "".join(
        chr(b) if (chr(b).isalnum() and b < 0x80) or chr(b) in _PATH_ALLOWED else f"%{b:02X}"
        for b in url.path.encode("utf-8", "surrogateescape")
    )


def query(url: URL) -> dict[str, list[str]]:
    """Go's ParseQuery: ``&``-separated pairs, ``+`` a space; a pair with ``;`` or a bad
    escape is dropped."""
    found: dict[str, list[str]] = {}
    if url.raw_query.count("&") >= _MAX_QUERY_PARAMETERS:
        return found  # Go 1.26's urlParamsWithinMax: an error, and Query() is empty
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
    """Kubernetes' ``isURL``: ``url.ParseRequestURI`` alone (``url()`` also reads the
    fragment apart, which can fail where this does not)."""
    try:
        parse_request_uri(text)
    except URLError:
        return False
    return True

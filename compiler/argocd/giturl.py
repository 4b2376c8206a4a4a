"""Argo CD's ``util/git.NormalizeGitURL`` (argo-cd ``util/git/git.go``, unchanged from v2.6.0 to
3.x), which ``IsSourcePermitted`` applies to the Application's repoURL and to every pattern of
the project's ``sourceRepos`` before matching them.

It ends with Go's ``url.Parse(repo)`` and ``URL.String()`` (``""`` when Parse fails), so this
module also ports the parts of Go's ``net/url`` those use (Go 1.19 ``src/net/url/url.go``), on
bytes as Go works: Parse refuses control bytes, a ``:`` in the first segment of a relative
path, a bad ``%`` escape, a bad port, and in a host any ASCII byte URLs must escape (a space,
``{``, ``\\``...); String re-escapes what Parse unescaped, so a path holding a byte that must
be escaped (space, ``{``, ``}``, non-ASCII) comes back escaped whole, ``*`` as ``%2A`` included.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from compiler.argocd.gobwas.gostr import go_string

_SSH_URL = re.compile(r"^(ssh://)?([^/:]*?)@[^@]+\Z")
"""``sshURLRegex`` of util/git/git.go (RE2's ``$`` is the very end: ``\\Z``)."""

_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""What ``strings.TrimSpace`` trims (``unicode.IsSpace``); Python's ``strip()`` trims more."""

_UNRESERVED = frozenset(b"-_.~")
_RESERVED = frozenset(b"$&+,/:;=?@")
_HOST_EXTRA = frozenset(b"!$&'()*+,;=:[]<>\"")
_SUB_DELIMS = frozenset(b"!$&'()*+,;=:@[]%")
_USERINFO = frozenset(b"-._:~!$&'()*+,;=%@")
_HEX = frozenset(b"0123456789abcdefABCDEF")


class _Mode(enum.Enum):
    """``net/url``'s ``encoding`` modes (those Parse and String use)."""

    PATH = "path"
    HOST = "host"
    ZONE = "zone"
    USER_PASSWORD = "userinfo"
    FRAGMENT = "fragment"


class _URLError(ValueError):
    """``url.Parse`` returned an error."""


def normalize_git_url(repo: str) -> str:
    """``NormalizeGitURL``: lower case, ``git@host:path`` as ``ssh://git@host/path``, no
    ``.git`` suffix, then ``url.Parse(...).String()`` without ``ssh://``; ``""`` when Parse
    fails."""
    repo = _go_to_lower(repo.strip(_GO_SPACE))
    if _SSH_URL.match(repo) and not repo.startswith("ssh://"):
        repo = "ssh://" + repo.replace(":", "/", 1)
    repo = repo.removesuffix(".git")
    try:
        normalized = _url_string(_parse(go_string(repo))).decode("utf-8")
    except _URLError:
        return ""
    return normalized.removeprefix("ssh://")


def _go_to_lower(text: str) -> str:
    """``strings.ToLower``: rune by rune (no final sigma), U+0130 to a plain ``i``."""
    return "".join("i" if char == "\u0130" else char.lower() for char in text)


def _is_alnum(c: int) -> bool:
    return 0x30 <= c <= 0x39 or 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A


def _should_escape(c: int, mode: _Mode) -> bool:
    """``shouldEscape``."""
    if _is_alnum(c) or c in _UNRESERVED:
        return False
    if mode in (_Mode.HOST, _Mode.ZONE) and c in _HOST_EXTRA:
        return False
    if c in _RESERVED:
        if mode == _Mode.PATH:
            return c == ord("?")
        if mode == _Mode.USER_PASSWORD:
            return c in b"@/?:"
        return mode != _Mode.FRAGMENT  # hosts escape / ? @ (the others are host extras)
    return not (mode == _Mode.FRAGMENT and c in b"!()*")


def _check_escape(s: bytes, i: int, mode: _Mode) -> None:
    """The checks ``unescape`` makes of the ``%`` at ``i``."""
    if i + 2 >= len(s) or s[i + 1] not in _HEX or s[i + 2] not in _HEX:
        raise _URLError("invalid URL escape")
    escape = s[i : i + 3]
    if mode == _Mode.HOST and int(escape[1:2], 16) < 8 and escape != b"%25":
        raise _URLError("invalid URL escape")  # hosts may only %-encode non-ASCII bytes
    if mode == _Mode.ZONE:
        value = int(escape[1:], 16)
        if escape != b"%25" and value != 0x20 and _should_escape(value, _Mode.HOST):
            raise _URLError("invalid URL escape")


def _unescape(s: bytes, mode: _Mode) -> bytes:
    """``unescape`` (for the modes above: ``+`` stays ``+``)."""
    i = 0
    while i < len(s):
        if s[i] == ord("%"):
            _check_escape(s, i, mode)
            i += 3
            continue
        if mode in (_Mode.HOST, _Mode.ZONE) and s[i] < 0x80 and _should_escape(s[i], mode):
            raise _URLError("invalid character in host name")
        i += 1
    return re.sub(rb"%([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), s)


def _escape(s: bytes, mode: _Mode) -> bytes:
    """``escape``."""
    return b"".join(b"%%%02X" % c if _should_escape(c, mode) else bytes([c]) for c in s)


def _valid_encoded(s: bytes, mode: _Mode) -> bool:
    """``validEncoded``."""
    return all(c in _SUB_DELIMS or not _should_escape(c, mode) for c in s)


def _valid_optional_port(port: bytes) -> bool:
    """``validOptionalPort``: empty or ``:`` and digits."""
    return not port or (port[:1] == b":" and all(0x30 <= c <= 0x39 for c in port[1:]))


@dataclass
class _URL:
    """The fields of Go's ``url.URL`` that String reads."""

    scheme: bytes = b""
    opaque: bytes = b""
    user: tuple[bytes, bytes | None] | None = None
    host: bytes = b""
    path: bytes = b""
    raw_path: bytes = b""
    omit_host: bool = False
    force_query: bool = False
    raw_query: bytes = b""
    fragment: bytes = b""
    raw_fragment: bytes = b""


def _parse(raw: bytes) -> _URL:
    """``url.Parse``: the URL, then its fragment."""
    raw, _, fragment = raw.partition(b"#")
    url = _parse_without_fragment(raw)
    if fragment:
        url.fragment = _unescape(fragment, _Mode.FRAGMENT)
        url.raw_fragment = b"" if _escape(url.fragment, _Mode.FRAGMENT) == fragment else fragment
    return url


def _split_scheme(raw: bytes) -> tuple[bytes, bytes]:
    """``getScheme``."""
    for i, c in enumerate(raw):
        if 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A:
            continue
        if 0x30 <= c <= 0x39 or c in b"+-.":
            if i == 0:
                return b"", raw
            continue
        if c == ord(":"):
            if i == 0:
                raise _URLError("missing protocol scheme")
            return raw[:i], raw[i + 1 :]
        return b"", raw
    return b"", raw


def _parse_without_fragment(raw: bytes) -> _URL:
    """``parse(rawURL, viaRequest=false)``."""
    if any(c < 0x20 or c == 0x7F for c in raw):
        raise _URLError("invalid control character in URL")
    url = _URL()
    if raw == b"*":
        url.path = b"*"
        return url
    scheme, rest = _split_scheme(raw)
    url.scheme = scheme.lower()
    if rest.endswith(b"?") and rest.count(b"?") == 1:
        url.force_query, rest = True, rest[:-1]
    else:
        rest, _, url.raw_query = rest.partition(b"?")
    if not rest.startswith(b"/"):
        if url.scheme:
            url.opaque = rest
            return url
        if b":" in rest.partition(b"/")[0]:
            raise _URLError("first path segment in URL cannot contain colon")
    if (url.scheme or not rest.startswith(b"///")) and rest.startswith(b"//"):
        authority, slash, path = rest[2:].partition(b"/")
        rest = slash + path
        url.user, url.host = _parse_authority(authority)
    elif url.scheme and rest.startswith(b"/"):
        url.omit_host = True
    url.path = _unescape(rest, _Mode.PATH)
    url.raw_path = b"" if _escape(url.path, _Mode.PATH) == rest else rest
    return url


def _parse_authority(authority: bytes) -> tuple[tuple[bytes, bytes | None] | None, bytes]:
    """``parseAuthority``: (user, password or None), host."""
    at = authority.rfind(b"@")
    host = _parse_host(authority[at + 1 :] if at >= 0 else authority)
    if at < 0:
        return None, host
    userinfo = authority[:at]
    if not all(_is_alnum(c) or c in _USERINFO for c in userinfo):
        raise _URLError("net/url: invalid userinfo")
    name, colon, password = userinfo.partition(b":")
    user = _unescape(name, _Mode.USER_PASSWORD)
    return (user, _unescape(password, _Mode.USER_PASSWORD) if colon else None), host


def _parse_host(host: bytes) -> bytes:
    """``parseHost``: ``[ipv6%25zone]:port`` or ``host:port``."""
    if host.startswith(b"["):
        close = host.rfind(b"]")
        if close < 0:
            raise _URLError("missing ']' in host")
        if not _valid_optional_port(host[close + 1 :]):
            raise _URLError("invalid port after host")
        zone = host[:close].find(b"%25")
        if zone >= 0:
            return (
                _unescape(host[:zone], _Mode.HOST)
                + _unescape(host[zone:close], _Mode.ZONE)
                + _unescape(host[close:], _Mode.HOST)
            )
    elif (colon := host.rfind(b":")) != -1 and not _valid_optional_port(host[colon:]):
        raise _URLError("invalid port after host")
    return _unescape(host, _Mode.HOST)


def _escaped_path(url: _URL) -> bytes:
    """``EscapedPath``."""
    raw = url.raw_path
    if raw and _valid_encoded(raw, _Mode.PATH) and _unescape_or_none(raw, _Mode.PATH) == url.path:
        return raw
    if url.path == b"*":
        return b"*"
    return _escape(url.path, _Mode.PATH)


def _escaped_fragment(url: _URL) -> bytes:
    """``EscapedFragment``."""
    raw = url.raw_fragment
    valid = raw and _valid_encoded(raw, _Mode.FRAGMENT)
    if valid and _unescape_or_none(raw, _Mode.FRAGMENT) == url.fragment:
        return raw
    return _escape(url.fragment, _Mode.FRAGMENT)


def _unescape_or_none(s: bytes, mode: _Mode) -> bytes | None:
    try:
        return _unescape(s, mode)
    except _URLError:
        return None


def _authority_string(url: _URL) -> bytes:
    """``//user:password@host`` as String writes it (or nothing)."""
    if not (url.scheme or url.host or url.user is not None):
        return b""
    if url.omit_host and not url.host and url.user is None:
        return b""
    out = b"//" if url.host or url.path or url.user is not None else b""
    if url.user is not None:
        name, password = url.user
        out += _escape(name, _Mode.USER_PASSWORD)
        if password is not None:
            out += b":" + _escape(password, _Mode.USER_PASSWORD)
        out += b"@"
    return out + _escape(url.host, _Mode.HOST)


def _url_string(url: _URL) -> bytes:
    """``URL.String``."""
    out = url.scheme + b":" if url.scheme else b""
    if url.opaque:
        out += url.opaque
    else:
        out += _authority_string(url)
        path = _escaped_path(url)
        if path and path[:1] != b"/" and url.host:
            out += b"/"
        if not out and b":" in path.partition(b"/")[0]:
            out += b"./"
        out += path
    if url.force_query or url.raw_query:
        out += b"?" + url.raw_query
    if url.fragment:
        out += b"#" + _escaped_fragment(url)
    return out

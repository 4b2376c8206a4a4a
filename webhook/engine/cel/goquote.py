"""Go's ``%q`` of a string, how Go's errors quote what they name (net/url, net/netip)."""

from __future__ import annotations

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

"""Kubernetes' IP and CIDR libraries (apiserver/pkg/cel/library/ip.go, cidr.go) on Python's
``ipaddress``, with Go's ``net/netip`` parsing rules as Kubernetes applies them: no zones,
no IPv4-mapped IPv6 addresses, no leading zeros in IPv4 octets or prefix lengths."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from functools import lru_cache

from webhook.engine.cel.goquote import go_quote

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class NetError(ValueError):
    """Not an IP address or CIDR as Kubernetes reads them."""


@dataclass(frozen=True)
class IP:
    """``net.IP``: equal when the addresses are."""

    address: Address

    @property
    def text(self) -> str:
        return str(self.address)  # RFC 5952, as netip's String()


@dataclass(frozen=True)
class CIDR:
    """``net.CIDR``: an address (host bits kept, as netip.Prefix) and a prefix length."""

    address: Address
    bits: int

    @property
    def text(self) -> str:
        return f"{self.address}/{self.bits}"

    def masked_address(self) -> Address:
        network = ipaddress.ip_network(f"{self.address}/{self.bits}", strict=False)
        return network.network_address


@lru_cache(maxsize=1024)
def parse_address(text: str) -> Address:
    if "%" in text:
        raise NetError(f"IP address {go_quote(text)} with zone value is not allowed")
    try:
        address = _parse_addr(text)
    except ValueError as exc:
        raise NetError(
            f"IP Address {go_quote(text)} parse error during conversion from string: {exc}"
        ) from None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise NetError(f"IPv4-mapped IPv6 address {go_quote(text)} is not allowed")
    return address


def ip(text: str) -> IP:
    return IP(parse_address(text))


def is_ip(text: str) -> bool:
    try:
        parse_address(text)
    except NetError:
        return False
    return True


def ip_is_canonical(text: str) -> bool:
    return str(parse_address(text)) == text


def family(value: IP) -> int:
    return value.address.version


def is_unspecified(value: IP) -> bool:
    return value.address.is_unspecified


def is_loopback(value: IP) -> bool:
    return value.address.is_loopback


def is_link_local_multicast(value: IP) -> bool:
    if isinstance(value.address, ipaddress.IPv4Address):
        return value.address in ipaddress.IPv4Network("224.0.0.0/24")
    return value.address in ipaddress.IPv6Network("ff02::/16")


def is_link_local_unicast(value: IP) -> bool:
    return value.address.is_link_local


def is_global_unicast(value: IP) -> bool:
    """netip's IsGlobalUnicast: not unspecified, loopback, multicast, link-local unicast, nor
    the IPv4 broadcast address (private ranges count as global here, as in Go)."""
    address = value.address
    if isinstance(address, ipaddress.IPv4Address) and int(address) == 0xFFFFFFFF:
        return False
    return not (
        address.is_unspecified
        or address.is_loopback
        or address.is_multicast
        or address.is_link_local
    )


@lru_cache(maxsize=1024)
def parse_cidr(text: str) -> CIDR:
    # Kubernetes' cidr() wraps netip.ParsePrefix's error in its prefix twice (cidr.go)
    where = "network address parse error during conversion from string: " * 2
    where += f"netip.ParsePrefix({go_quote(text)})"
    address_text, slash, bits_text = text.rpartition("/")
    if not slash:
        raise NetError(f"{where}: no '/'")
    if "%" in address_text:
        raise NetError(f"{where}: IPv6 zones cannot be present in a prefix")
    try:
        address = _parse_addr(address_text)
    except ValueError as exc:
        raise NetError(f"{where}: {exc}") from None
    if not re.fullmatch("[0-9]+", bits_text) or (bits_text != "0" and bits_text[0] == "0"):
        raise NetError(f"{where}: bad bits after slash: {go_quote(bits_text)}")
    bits = int(bits_text)
    if bits > address.max_prefixlen:
        raise NetError(f"{where}: prefix length out of range")
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise NetError(f"IPv4-mapped IPv6 address {go_quote(text)} is not allowed")
    return CIDR(address, bits)


def cidr(text: str) -> CIDR:
    return parse_cidr(text)


def is_cidr(text: str) -> bool:
    try:
        parse_cidr(text)
    except NetError:
        return False
    return True


def contains_ip(network: CIDR, value: IP | str) -> bool:
    address = parse_address(value) if isinstance(value, str) else value.address
    if address.version != network.address.version:
        return False
    return address in ipaddress.ip_network(network.text, strict=False)


def contains_cidr(network: CIDR, other: CIDR | str) -> bool:
    """As Kubernetes' code has it (cidr.go): ``Overlaps`` and a prefix at least as long, that
    is the other's address, masked to this network's prefix, is this network's masked address
    (neither needs to be in canonical form: ``192.168.0.1/24`` contains ``192.168.0.7/32``)."""
    inner = parse_cidr(other) if isinstance(other, str) else other
    if inner.address.version != network.address.version or network.bits > inner.bits:
        return False
    masked = ipaddress.ip_network(f"{inner.address}/{network.bits}", strict=False)
    return masked.network_address == network.masked_address()


def cidr_ip(network: CIDR) -> IP:
    return IP(network.address)


def masked(network: CIDR) -> CIDR:
    return CIDR(network.masked_address(), network.bits)


def prefix_length(network: CIDR) -> int:
    return network.bits


def to_string(value: IP | CIDR) -> str:
    """``string()`` of an IP or a CIDR: netip's String(), the canonical form (RFC 5952)."""
    return value.text


# ---- Go's net/netip.ParseAddr, for its error messages (Kubernetes shows them to the writer)


def _parse_addr(text: str) -> Address:
    """The address, or a ValueError worded as netip.ParseAddr's error."""
    for char in text:
        if char == ".":
            _ipv4_fields(text, text)
            break
        if char == ":":
            _ipv6_check(text)
            break
        if char == "%":
            raise _addr_error(text, "missing IPv6 address")
    else:
        raise _addr_error(text, "unable to parse IP")
    return ipaddress.ip_address(text)


def go_parse_addr(text: str) -> Address | None:
    """Go's ``netip.ParseAddr``: the address (None for an IPv6 address whose zone Python's
    ``ipaddress`` does not take: it holds a ``%``), or a ValueError worded as Go's."""
    try:
        return _parse_addr(text)
    except ValueError as exc:
        if str(exc).startswith("ParseAddr("):
            raise
        return None


def _addr_error(text: str, message: str, at: str | None = None) -> ValueError:
    where = f" (at {go_quote(at)})" if at else ""
    return ValueError(f"ParseAddr({go_quote(text)}): {message}{where}")


def _ipv4_fields(whole: str, text: str) -> None:
    value, fields, digits = 0, 0, 0
    for index, char in enumerate(text):
        if "0" <= char <= "9":
            if digits == 1 and value == 0:
                raise _addr_error(whole, "IPv4 field has octet with leading zero")
            value, digits = value * 10 + ord(char) - 48, digits + 1
            if value > 255:
                raise _addr_error(whole, "IPv4 field has value >255")
        elif char == ".":
            if index in (0, len(text) - 1) or text[index - 1] == ".":
                raise _addr_error(whole, "IPv4 field must have at least one digit", text[index:])
            if fields == 3:
                raise _addr_error(whole, "IPv4 address too long")
            fields, value, digits = fields + 1, 0, 0
        else:
            raise _addr_error(whole, "unexpected character", text[index:])
    if fields < 3:
        raise _addr_error(whole, "IPv4 address too short")


def _ipv6_check(whole: str) -> None:
    text, zone = whole, ""
    if "%" in text:
        text, zone = text.split("%", 1)
        if not zone:
            raise _addr_error(whole, "zone must be a non-empty string")
    filled, ellipsis = 0, -1
    if text.startswith("::"):
        ellipsis, text = 0, text[2:]
        if not text:
            return
    while filled < 16:
        digits = 0
        while digits < len(text) and text[digits] in "0123456789abcdefABCDEF":
            if digits > 3:
                raise _addr_error(whole, "each group must have 4 or less digits", text)
            digits += 1
        if digits == 0:
            raise _addr_error(
                whole, "each colon-separated field must have at least one digit", text
            )
        if digits < len(text) and text[digits] == ".":
            if ellipsis < 0 and filled != 12:
                raise _addr_error(
                    whole,
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    text,
                )
            if filled + 4 > 16:
                raise _addr_error(
                    whole,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    text,
                )
            _ipv4_fields(whole, text)
            text, filled = "", filled + 4
            break
        filled += 2
        text = text[digits:]
        if not text:
            break
        if text[0] != ":":
            raise _addr_error(whole, "unexpected character, want colon", text)
        if len(text) == 1:
            raise _addr_error(whole, "colon must be followed by more characters", text)
        text = text[1:]
        if text[0] == ":":
            if ellipsis >= 0:
                raise _addr_error(whole, "multiple :: in address", text)
            ellipsis, text = filled, text[1:]
            if not text:
                break
    if text:
        raise _addr_error(whole, "trailing garbage after address", text)
    if filled < 16 and ellipsis < 0:
        raise _addr_error(whole, "address string too short")
    if filled == 16 and ellipsis >= 0:
        raise _addr_error(whole, "the :: must expand to at least one field of zeros")

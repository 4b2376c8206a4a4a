"""Kubernetes' IP and CIDR libraries (apiserver/pkg/cel/library/ip.go, cidr.go) on Python's
``ipaddress``, with Go's ``net/netip`` parsing rules as Kubernetes applies them: no zones,
no IPv4-mapped IPv6 addresses, no leading zeros in IPv4 octets or prefix lengths."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from functools import lru_cache

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
        raise NetError(f"IP address {text!r} with zone value is not allowed")
    try:
        address = ipaddress.ip_address(text)
    except ValueError as exc:
        raise NetError(
            f"IP Address {text!r} parse error during conversion from string: {exc}"
        ) from None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise NetError(f"IPv4-mapped IPv6 address {text!r} is not allowed")
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
    where = f"network address parse error during conversion from string: {text!r}"
    address_text, slash, bits_text = text.rpartition("/")
    if not slash or not bits_text.isdigit() or (bits_text != "0" and bits_text[0] == "0"):
        raise NetError(f"{where}: bad bits after slash: {bits_text!r}")
    if "%" in address_text:
        raise NetError(f"{where}: IPv6 zones cannot be present in a prefix")
    try:
        address = ipaddress.ip_address(address_text)
    except ValueError as exc:
        raise NetError(f"{where}: {exc}") from None
    bits = int(bits_text)
    if bits > address.max_prefixlen:
        raise NetError(f"{where}: prefix length out of range")
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise NetError(f"IPv4-mapped IPv6 address {text!r} is not allowed")
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
    """As Kubernetes' code has it (cidr.go): the other's address equals this network's masked
    address, and its prefix is at least as long."""
    inner = parse_cidr(other) if isinstance(other, str) else other
    return (
        inner.address.version == network.address.version
        and inner.address == network.masked_address()
        and network.bits <= inner.bits
    )


def cidr_ip(network: CIDR) -> IP:
    return IP(network.address)


def masked(network: CIDR) -> CIDR:
    return CIDR(network.masked_address(), network.bits)


def prefix_length(network: CIDR) -> int:
    return network.bits

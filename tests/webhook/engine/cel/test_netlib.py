"""netlib's port of Go's netip.ParseAddr: the same addresses as Python's parser (which gives
the values), Go's words when one is refused."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.engine.cel import netlib

# ip_test.go (95f0849) and Go's netip error texts as Kubernetes shows them
MESSAGES = [
    ("192.168.0.1.0", 'ParseAddr("192.168.0.1.0"): IPv4 address too long'),
    (
        "2001:db8:::68",
        'ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit '
        '(at ":68")',
    ),
    ("1.2.3", 'ParseAddr("1.2.3"): IPv4 address too short'),
    ("01.2.3.4", 'ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero'),
    ("1.2.3.256", 'ParseAddr("1.2.3.256"): IPv4 field has value >255'),
    ("1::2::3", 'ParseAddr("1::2::3"): multiple :: in address (at ":3")'),
    ("abc", 'ParseAddr("abc"): unable to parse IP'),
]


@pytest.mark.parametrize(("text", "message"), MESSAGES)
def test_go_words_the_error(text: str, message: str) -> None:
    with pytest.raises(netlib.NetError, match="parse error during conversion") as caught:
        netlib.parse_address(text)
    assert str(caught.value).endswith(message)


def _python_accepts(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


ADDRESS_PARTS = st.sampled_from(
    ["0", "1", "01", "255", "256", "ff", "FFFF", "10000", "::", ":", "."]
)


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(ADDRESS_PARTS, max_size=12).map("".join) | st.text("0123456789abcdef:.", max_size=40)
)
def test_the_port_accepts_what_python_accepts(text: str) -> None:
    try:
        netlib._parse_addr(text)
    except ValueError as exc:
        assert str(exc).startswith("ParseAddr("), f"{text}: Go's rules accept, Python's refuse"
        assert not _python_accepts(text), f"{text}: Go's rules refuse, Python's accept"
        return
    assert _python_accepts(text)

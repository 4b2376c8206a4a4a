"""Kubernetes' CEL libraries on both backends, from their own tables.

Sources (the examples in each function's documentation, and the test tables):
- kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/cel/library/lists.go (2293553) and
  regex.go (a604ef4): the documented examples;
- kubernetes/kubernetes library/ip.go (2b24c51): the documented examples; library/cidr_test.go
  (0f83589): TestCIDR's table (the two runtime-error cases are in ERRORS, the
  compile-error case in COMPILE_ERRORS);
- kubernetes/kubernetes library/urls.go (6732d91): the documented examples;
- kubernetes/kubernetes library/semverlib.go (2293553): the documented examples, and
  semver.org's precedence example (1.0.0-alpha < 1.0.0-alpha.1 < ... < 1.0.0);
- google/cel-go ext/sets_test.go (14f6746a): the cases with homogeneous list literals (the
  others mix int, uint and double in one literal, which Kubernetes refuses to compile).
"""

from __future__ import annotations

import pytest

from webhook.engine.cel import Backend, CelCompileError, CelEvalError
from webhook.engine.cel.engines import BACKENDS, make_backend

# (expression, value) from lists.go
LISTS = [
    ("[1, 2, 3].isSorted()", True),
    ("['a', 'b', 'b', 'c'].isSorted()", True),
    ("[2.0, 1.0].isSorted()", False),
    ("[1].isSorted()", True),
    ("[].isSorted()", True),
    ("[1, 3].sum()", 4),
    ("[1.0, 3.0].sum()", 4.0),
    ("[].sum()", 0),
    ("[1, 3].min()", 1),
    ("[1, 3].max()", 3),
    ("[1].min()", 1),
    ("([0] + []).min()", 0),
    ("['b', 'a', 'c'].max()", "c"),
]
# from regex.go
REGEX = [
    ("'abc 123'.find('[0-9]+')", "123"),
    ("'abc 123'.find('xyz')", ""),
    ("'123 abc 456'.findAll('[0-9]+')", ["123", "456"]),
    ("'123 abc 456'.findAll('[0-9]+', 1)", ["123"]),
    ("'123 abc 456'.findAll('xyz')", []),
]
# from cel-go ext/sets_test.go
SETS = [
    ("sets.contains([], [])", True),
    ("sets.contains([1], [])", True),
    ("sets.contains([1], [1])", True),
    ("sets.contains([1], [1, 1])", True),
    ("sets.contains([1, 1], [1])", True),
    ("sets.contains([2, 1], [1])", True),
    ("sets.contains([1, 2, 3, 4], [2, 3])", True),
    ("!sets.contains([1], [2])", True),
    ("!sets.contains([1], [1, 2])", True),
    ("sets.equivalent([], [])", True),
    ("sets.equivalent([1], [1])", True),
    ("sets.equivalent([1], [1, 1])", True),
    ("sets.equivalent([1, 1], [1])", True),
    ("!sets.equivalent([2, 1], [1])", True),
    ("!sets.equivalent([1], [1, 2])", True),
    ("sets.intersects([1], [1])", True),
    ("sets.intersects([1], [1, 1])", True),
    ("sets.intersects([1, 1], [1])", True),
    ("sets.intersects([2, 1], [1])", True),
    ("sets.intersects([1], [1, 2])", True),
    ("!sets.intersects([], [])", True),
    ("!sets.intersects([1], [])", True),
    ("!sets.intersects([1], [2])", True),
]
# from ip.go
IP = [
    ("isIP('127.0.0.1')", True),
    ("isIP('::1')", True),
    ("isIP('127.0.0.256')", False),
    ("isIP(':::1')", False),
    ("ip.isCanonical('127.0.0.1')", True),
    ("ip.isCanonical('2001:db8::abcd')", True),
    ("ip.isCanonical('2001:DB8::ABCD')", False),
    ("ip.isCanonical('2001:db8::0:0:0:abcd')", False),
    ("ip('127.0.0.1').family()", 4),
    ("ip('::1').family()", 6),
    ("ip('127.0.0.1').family() == 4", True),
    ("ip('::1').family() == 6", True),
    ("ip('0.0.0.0').isUnspecified()", True),
    ("ip('127.0.0.1').isUnspecified()", False),
    ("ip('::').isUnspecified()", True),
    ("ip('::1').isUnspecified()", False),
    ("ip('127.0.0.1').isLoopback()", True),
    ("ip('192.168.0.1').isLoopback()", False),
    ("ip('::1').isLoopback()", True),
    ("ip('2001:db8::abcd').isLoopback()", False),
    ("ip('224.0.0.1').isLinkLocalMulticast()", True),
    ("ip('224.0.1.1').isLinkLocalMulticast()", False),
    ("ip('ff02::1').isLinkLocalMulticast()", True),
    ("ip('fd00::1').isLinkLocalMulticast()", False),
    ("ip('169.254.169.254').isLinkLocalUnicast()", True),
    ("ip('192.168.0.1').isLinkLocalUnicast()", False),
    ("ip('fe80::1').isLinkLocalUnicast()", True),
    ("ip('fd80::1').isLinkLocalUnicast()", False),
    ("ip('192.168.0.1').isGlobalUnicast()", True),
    ("ip('255.255.255.255').isGlobalUnicast()", False),
    ("ip('2001:db8::abcd').isGlobalUnicast()", True),
    ("ip('ff00::1').isGlobalUnicast()", False),
]
# from cidr_test.go TestCIDR (values as the table's expectations, compared with ==)
CIDR = [
    ("cidr(dyn('192.168.0.0/24')) == cidr('192.168.0.0/24')", True),
    ("cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))", True),
    ("cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))", False),
    ("cidr('192.168.0.0/24').containsIP('192.168.0.1')", True),
    ("cidr('192.168.0.0/24').containsIP('192.168.1.1')", False),
    ("cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/25'))", True),
    ("cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/23'))", False),
    ("cidr('192.168.0.0/24').containsCIDR('192.168.0.0/25')", True),
    ("cidr('192.168.0.0/24').containsCIDR('192.168.0.0/23')", False),
    # Kubernetes masks the inner address to the outer prefix (netip.Prefix.Overlaps)
    ("cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.1/32'))", True),
    ("cidr('192.168.0.1/24').containsCIDR('192.168.0.7/32')", True),
    ("cidr('::/0').containsCIDR(cidr('fe80::/10'))", True),
    ("cidr('10.0.0.0/8').containsCIDR('11.0.0.0/16')", False),
    ("cidr('192.168.0.0/24').ip() == ip('192.168.0.0')", True),
    ("cidr('192.168.0.0/24').masked() == cidr('192.168.0.0/24')", True),
    ("cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')", True),
    ("cidr('192.168.0.0/24').prefixLength()", 24),
    ("cidr('2001:db8::/32') == cidr('2001:db8::/32')", True),
    ("cidr('2001:db8::/32').containsIP(ip('2001:db8::1'))", True),
    ("cidr('2001:db8::/32').containsIP(ip('2001:dc8::1'))", False),
    ("cidr('2001:db8::/32').containsIP('2001:db8::1')", True),
    ("cidr('2001:db8::/32').containsIP('2001:dc8::1')", False),
    ("cidr('2001:db8::/32').containsCIDR(cidr('2001:db8::/33'))", True),
    ("cidr('2001:db8::/32').containsCIDR(cidr('2001:db8::/31'))", False),
    ("cidr('2001:db8::/32').containsCIDR('2001:db8::/33')", True),
    ("cidr('2001:db8::/32').containsCIDR('2001:db8::/31')", False),
    ("cidr('2001:db8::/32').ip() == ip('2001:db8::')", True),
    ("cidr('2001:db8::/32').masked() == cidr('2001:db8::/32')", True),
    ("cidr('2001:db8:1::/32').masked() == cidr('2001:db8::/32')", True),
    ("cidr('2001:db8::/32').prefixLength()", 32),
    # cidr.go's documented examples
    ("cidr('192.168.0.1/24') == cidr('192.168.0.1/24').masked()", False),
    ("cidr('192.168.0.1/24').ip().family()", 4),
    ("cidr('::1/128').ip().family()", 6),
    ("isCIDR('192.168.0.0/16')", True),
    ("isCIDR('::1/128')", True),
    ("isCIDR('192.168.0.0/33')", False),
    ("isCIDR('::1/129')", False),
]
# from urls.go
URL = [
    ("isURL('https://user:pass@example.com:80/path?query=val#fragment')", True),
    ("isURL('/absolute-path')", True),
    ("isURL('https://a:b:c/')", False),
    ("isURL('../relative-path')", False),
    ("url('/path').getScheme()", ""),
    ("url('https://example.com/').getScheme()", "https"),
    ("url('https://example.com:80/').getHost()", "example.com:80"),
    ("url('https://example.com/').getHost()", "example.com"),
    ("url('https://[::1]:80/').getHost()", "[::1]:80"),
    ("url('https://[::1]/').getHost()", "[::1]"),
    ("url('/path').getHost()", ""),
    ("url('https://example.com:80/').getHostname()", "example.com"),
    ("url('https://127.0.0.1:80/').getHostname()", "127.0.0.1"),
    ("url('https://[::1]:80/').getHostname()", "::1"),
    ("url('/path').getHostname()", ""),
    ("url('https://example.com:80/').getPort()", "80"),
    ("url('https://example.com/').getPort()", ""),
    ("url('/path').getPort()", ""),
    ("url('https://example.com/path').getEscapedPath()", "/path"),
    ("url('https://example.com/path with spaces/').getEscapedPath()", "/path%20with%20spaces/"),
    ("url('https://example.com').getEscapedPath()", ""),
    (
        "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()",
        {"k1": ["a"], "k2": ["b", "c"]},
    ),
    (
        "url('https://example.com/path?key with spaces=value with spaces').getQuery()",
        {"key with spaces": ["value with spaces"]},
    ),
    ("url('https://example.com/path?').getQuery()", {}),
    ("url('https://example.com/path').getQuery()", {}),
]
# from semverlib.go
SEMVER = [
    ("isSemver('1.0.0')", True),
    ("isSemver('hello')", False),
    ("isSemver('v1.0')", False),
    ("isSemver('v1.0', true)", True),
    ("isSemver('1.0', true)", True),
    ("isSemver('01.01.01', true)", True),
    ("semver('v1.0.0', true) == semver('1.0.0')", True),
    ("semver('1.0', true) == semver('1.0.0')", True),
    ("semver('01.01.01', true) == semver('1.1.1')", True),
    ("semver('1.2.3').major()", 1),
    ("semver('1.2.3').minor()", 2),
    ("semver('1.2.3').patch()", 3),
    ("semver('1.2.3').compareTo(semver('1.2.3'))", 0),
    ("semver('1.2.3').compareTo(semver('2.0.0'))", -1),
    ("semver('1.2.3').compareTo(semver('0.1.2'))", 1),
    ("semver('1.2.3').isGreaterThan(semver('0.1.2'))", True),
    ("semver('1.2.3').isLessThan(semver('0.1.2'))", False),
    (
        "['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', "
        "'1.0.0-beta.11', '1.0.0-rc.1', '1.0.0'].map(v, semver(v))"
        ".all(v, v.compareTo(semver('1.0.0-alpha')) >= 0)",
        True,
    ),
    ("semver('1.0.0-beta.11').isGreaterThan(semver('1.0.0-beta.2'))", True),
    ("semver('1.0.0-alpha.beta').isGreaterThan(semver('1.0.0-alpha.1'))", True),
    ("semver('1.0.0').isGreaterThan(semver('1.0.0-rc.1'))", True),
    ("semver('1.0.0+build.1') == semver('1.0.0+build.2')", True),
]
ERRORS = [
    "semver('200K')",
    "semver('Three')",
    "semver('Mi')",
    "semver('1.0.0-01')",
    "url('https://a:b:c/')",
    "url('../relative-path')",
    "[].min()",
    "[].max()",
    "cidr('192.168.0.0/')",
    "cidr('2001:db8::/')",
    "ip('127.0.0.256')",
    "ip(':::1')",
    "ip('::ffff:1.2.3.4')",
    "ip('fe80::1%eth0')",
]
COMPILE_ERRORS = [
    "'abc'.find('[')",  # a constant pattern is compiled with the program, as in Kubernetes
    "cidr(192168)",
    "ip('1.2.3.4') < ip('1.2.3.5')",
    "url('/a') < url('/b')",
]


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    return make_backend(request.param)


@pytest.mark.parametrize(
    ("expression", "expected"), LISTS + REGEX + SETS + IP + CIDR + URL + SEMVER, ids=str
)
def test_value(backend: Backend, expression: str, expected: object) -> None:
    value = backend.evaluate(backend.compile(expression), backend.activation({}))
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize("expression", ERRORS)
def test_error(backend: Backend, expression: str) -> None:
    with pytest.raises(CelEvalError):
        backend.evaluate(backend.compile(expression), backend.activation({}))


@pytest.mark.parametrize("expression", COMPILE_ERRORS)
def test_compile_error(backend: Backend, expression: str) -> None:
    with pytest.raises(CelCompileError):
        backend.compile(expression)


def test_the_type_of_an_opaque_value(backend: Backend) -> None:
    """cidr_test.go: type(cidr(...)) == net.CIDR."""
    program = backend.compile("type(cidr('192.168.0.0/24')) == net.CIDR")
    assert backend.evaluate(program, backend.activation({})) is True


def test_on_data_as_a_rule_reads_it(backend: Backend) -> None:
    """Lists from the object are dyn to the type checker: the same functions apply."""
    variables = {"object": {"ports": [80, 443], "names": ["b", "a"]}}
    activation = backend.activation(variables)
    for expression, expected in [
        ("object.ports.isSorted() && object.ports.max() == 443", True),
        ("object.names.min()", "a"),
        ("sets.contains(object.ports, [443])", True),
    ]:
        assert backend.evaluate(backend.compile(expression), activation) == expected

# ruff: noqa: E501 - Kubernetes' and cel-go's own test expressions and messages, one per line
"""Kubernetes' own CEL test tables, every library a ValidatingAdmissionPolicy can use, as data,
with the runner that counts them per library and backend (the table in docs/cel.md is its output:
``python -m tests.webhook.engine.cel.kubernetes_tables``).

Sources, by library (the cases that need a schema-typed ``self`` or cel-go's test messages are
left out; everything else is here as the source has it):
- quantity: kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/cel/library/quantity_test.go
  (0625d6c) TestQuantity, without ``mul``, ``div`` and ``divInt``: they come from
  kubernetes/kubernetes#135995, which is not merged (no Kubernetes release has them);
- ip: library/ip_test.go (95f0849) TestIP, and ip.go's documented examples;
- cidr: library/cidr_test.go (0f83589) TestCIDR, and cidr.go's documented examples;
- format: library/format_test.go (03bd701) TestFormat, its named cases and the generated ones
  (every name found, equal to itself, unequal to every other);
- lists: library/lists.go (2293553) the documented examples (isSorted, sum, min, max, indexOf,
  lastIndexOf, includes);
- regex, urls, semver: regex.go (a604ef4), urls.go (6732d91), semverlib.go (2293553), the
  documented examples;
- sets: google/cel-go 14f6746a ext/sets_test.go (homogeneous literals) and the apiextensions
  validation_test.go "listSets" cases;
- strings ext: cel-go ext/strings_test.go (``test_strings.CASES``);
- lists ext, two-variable comprehensions: cel-go ext/lists_test.go and ext/comprehensions_test.go
  (``test_cel_go_extensions``), and comprehensions_test.go's transformMap, transformMapEntry and
  exists_one cases;
- optionals: cel-go cel/cel_test.go TestOptionalValuesEval, the cases without input variables
  or test messages;
- and for quantity, regex, lists, urls, ip, cidr and optionals, the library sections of
  kubernetes/kubernetes apiextensions-apiserver/pkg/apiserver/schema/cel/validation_test.go
  (``CRD_*`` below, the test's ``self`` as ``object``).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Any

from tests.webhook.engine.cel import test_cel_go_extensions, test_kubernetes_libraries, test_strings
from webhook.engine.cel import Backend, CelCompileError, CelEvalError
from webhook.engine.cel.engines import BACKENDS, make_backend
from webhook.engine.cel.formatlib import FORMATS

_OPTIONAL = object()


@dataclass(frozen=True)
class Case:
    """One expression and what Kubernetes gives for it: a value (``equals``: an expression it
    equals, as the Go tests compare opaque values), an evaluation error (a regular expression
    its message must contain, '' for any), a compile error (Kubernetes' message kept for the
    reader: the checker's wording is cel-cpp's here, so any compile error passes), or an
    optional."""

    library: str
    expression: str
    value: Any = None
    equals: str | None = None
    error: str | None = None
    compile_error: str | None = None
    optional: Any = _OPTIONAL  # None: optional.none(); else optional.of(this value)
    data: Any = None  # the object the expression reads as ``object`` (the CRD tests' ``self``)


def _values(library: str, pairs: list[tuple[str, Any]]) -> list[Case]:
    return [Case(library, expression, value=value) for expression, value in pairs]


def _true(library: str, expressions: list[str]) -> list[Case]:
    return [Case(library, expression, value=True) for expression in expressions]


QUANTITY = [
    Case("quantity", 'quantity("12Mi")', equals='quantity("12Mi")'),
    Case("quantity", 'quantity("10Mo")', error="quantities must match the regular expression.*"),
    Case("quantity", 'quantity("10Mm")', error="unable to parse quantity's suffix"),
    *_values(
        "quantity",
        [
            ('isQuantity("20")', True),
            ('isQuantity("20M")', True),
            ('isQuantity("20Mi")', True),
            ('isQuantity("20Mo")', False),
            ('isQuantity("10Mm")', False),
            ('quantity("200M") == quantity("200M")', True),
            ('quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', True),
            (
                'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")',
                True,
            ),
            ('quantity("200M") == quantity("0.3G")', False),
            ('quantity("50M").isLessThan(quantity("50Mi"))', True),
            ('quantity("50M").isLessThan(quantity("100M"))', True),
            ('quantity("100M").isLessThan(quantity("50M"))', False),
            ('quantity("50Mi").isGreaterThan(quantity("50M"))', True),
            ('quantity("150Mi").isGreaterThan(quantity("100Mi"))', True),
            ('quantity("50M").isGreaterThan(quantity("100M"))', False),
            ('quantity("200M").compareTo(quantity("0.2G"))', 0),
            ('quantity("50M").compareTo(quantity("50Mi"))', -1),
            ('quantity("50Mi").compareTo(quantity("50M"))', 1),
            ('quantity("50k").add(quantity("20")) == quantity("50.02k")', True),
            ('quantity("50k").add(20).isLessThan(quantity("50020"))', False),
            ('quantity("50k").sub(quantity("20")) == quantity("49.98k")', True),
            ('quantity("50k").sub(20) == quantity("49980")', True),
            ('quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980),
            ('quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20),
            ('quantity("50k").asInteger()', 50000),
            ('quantity("9999999999999999999999999999999999999G").isInteger()', False),
            ('quantity("50").isInteger()', True),
            ('quantity("50.703k").asApproximateFloat()', 50703.0),
        ],
    ),
    Case(
        "quantity",
        "isQuantity([1, 2, 3])",
        compile_error="found no matching overload for 'isQuantity' applied to.*",
    ),
    Case(
        "quantity",
        'quantity("9999999999999999999999999999999999999G").asInteger()',
        error="cannot convert value to integer",
    ),
]

IP = [
    Case("ip", 'ip("192.168.0.1")', equals='ip("192.168.0.1")'),
    Case(
        "ip",
        'ip("192.168.0.1.0")',
        error=re.escape(
            'IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long'
        ),
    ),
    Case(
        "ip",
        'ip.isCanonical("127.0.0.1.0")',
        error=re.escape(
            'IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long'
        ),
    ),
    Case("ip", 'ip("2001:db8::68")', equals='ip("2001:db8::68")'),
    Case(
        "ip",
        'ip("2001:db8:::68")',
        error=re.escape(
            'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")'
        ),
    ),
    Case(
        "ip",
        'ip.isCanonical("2001:db8:::68")',
        error=re.escape(
            'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")'
        ),
    ),
    Case(
        "ip",
        'isIP(cidr("192.168.0.0/24"))',
        compile_error=r"found no matching overload for 'isIP' applied to '\(net.CIDR\)'",
    ),
    *_values(
        "ip",
        [
            ('isIP("192.168.0.1")', True),
            ('isIP("192.168.0.1.0")', False),
            ('ip.isCanonical("127.0.0.1")', True),
            ('ip("192.168.0.1").family()', 4),
            ('ip("0.0.0.0").isUnspecified()', True),
            ('ip("127.0.0.1").isUnspecified()', False),
            ('ip("127.0.0.1").isLoopback()', True),
            ('ip("1.2.3.4").isLoopback()', False),
            ('ip("224.0.0.1").isLinkLocalMulticast()', True),
            ('ip("224.0.1.1").isLinkLocalMulticast()', False),
            ('ip("169.254.169.254").isLinkLocalUnicast()', True),
            ('ip("192.168.0.1").isLinkLocalUnicast()', False),
            ('ip("192.168.0.1").isGlobalUnicast()', True),
            ('ip("255.255.255.255").isGlobalUnicast()', False),
            ('isIP("2001:db8::68")', True),
            ('isIP("2001:db8:::68")', False),
            ('ip.isCanonical("2001:db8::68")', True),
            ('ip.isCanonical("2001:DB8::68")', False),
            ('ip("2001:db8::68").family()', 6),
            ('ip("::").isUnspecified()', True),
            ('ip("::1").isUnspecified()', False),
            ('ip("::1").isLoopback()', True),
            ('ip("2001:db8::abcd").isLoopback()', False),
            ('ip("ff02::1").isLinkLocalMulticast()', True),
            ('ip("fd00::1").isLinkLocalMulticast()', False),
            ('ip("fe80::1").isLinkLocalUnicast()', True),
            ('ip("fd80::1").isLinkLocalUnicast()', False),
            ('ip("2001:db8::abcd").isGlobalUnicast()', True),
            ('ip("ff00::1").isGlobalUnicast()', False),
            ('string(ip("192.168.0.1"))', "192.168.0.1"),
            ('type(ip("192.168.0.1")) == net.IP', True),
        ],
    ),
    *_values("ip", test_kubernetes_libraries.IP),
]

CIDR = [
    Case(
        "cidr",
        "cidr(192168)",
        compile_error=r"found no matching overload for 'cidr' applied to '\(int\)'",
    ),
    Case(
        "cidr",
        'cidr("192.168.0.0/")',
        error=re.escape(
            'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""'
        ),
    ),
    Case(
        "cidr",
        'cidr("2001:db8::/")',
        error=re.escape(
            'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""'
        ),
    ),
    Case("cidr", 'cidr("192.168.0.0/24").ip()', equals='ip("192.168.0.0")'),
    Case("cidr", 'cidr("192.168.0.0/24").masked()', equals='cidr("192.168.0.0/24")'),
    Case("cidr", 'cidr("192.168.0.1/24").masked()', equals='cidr("192.168.0.0/24")'),
    Case("cidr", 'cidr("2001:db8::/32")', equals='cidr("2001:db8::/32")'),
    Case("cidr", 'cidr("2001:db8::/32").ip()', equals='ip("2001:db8::")'),
    Case("cidr", 'cidr("2001:db8::/32").masked()', equals='cidr("2001:db8::/32")'),
    Case("cidr", 'cidr("2001:db8:1::/32").masked()', equals='cidr("2001:db8::/32")'),
    *_values(
        "cidr",
        [
            *test_kubernetes_libraries.CIDR,
            ('string(cidr("192.168.0.0/24"))', "192.168.0.0/24"),
            ('type(cidr("192.168.0.0/24")) == net.CIDR', True),
        ],
    ),
]

_SPACE = "contains a space"
_LABEL_MESSAGE = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
_SUBDOMAIN_MESSAGE = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
_DNS1035_MESSAGE = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
FORMAT = [
    *(
        Case("format", f"format.{name}().validate({text!r})", optional=None)
        for name, text in [
            ("dns1123Label", "my-label-name"),
            ("dns1123Subdomain", "apiextensions.k8s.io"),
            ("qualifiedName", "apiextensions.k8s.io/v1beta1"),
            ("dns1123LabelPrefix", "my-label-prefix-"),
            ("dns1123SubdomainPrefix", "mysubdomain.prefix.-"),
            ("dns1035LabelPrefix", "my-label-prefix-"),
            ("uri", "http://example.com"),
            ("uuid", "123e4567-e89b-12d3-a456-426614174000"),
            ("byte", "aGVsbG8="),
            ("date", "2021-01-01"),
            ("datetime", "2021-01-01T00:00:00Z"),
            ("dns1123Label", "my-label-name"),
            ("dns1123Subdomain", "example.com"),
            ("dns1035Label", "my-label-name"),
            ("qualifiedName", "my.name"),
            ("byte", "aGVsbG8="),
            ("date", "2020-01-01"),
            ("datetime", "2020-01-01T00:00:00Z"),
            ("labelValue", "my-cool-label-Value"),
        ]
    ),
    *(
        Case("format", f"format.{name}().validate({text!r})", optional=[message])
        for name, text, message in [
            ("dns1123Label", _SPACE, _LABEL_MESSAGE),
            ("dns1123Subdomain", _SPACE, _SUBDOMAIN_MESSAGE),
            ("dns1035Label", _SPACE, _DNS1035_MESSAGE),
            (
                "qualifiedName",
                _SPACE,
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            ),
            ("dns1123LabelPrefix", _SPACE + "-", _LABEL_MESSAGE),
            ("dns1123SubdomainPrefix", _SPACE + "-", _SUBDOMAIN_MESSAGE),
            ("dns1035LabelPrefix", _SPACE + "-", _DNS1035_MESSAGE),
            ("byte", "aGVsbG8", "invalid base64"),
            ("date", "2020-01-32", "invalid date"),
            ("datetime", "2020-01-32T00:00:00Z", "invalid datetime"),
            (
                "labelValue",
                "my-cool-label-Value!!\n\n!!!",
                "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ),
        ]
    ),
    Case("format", 'format.named("unknown").hasValue()', value=False),
    *(
        case
        for name in FORMATS
        for case in [
            Case("format", f'format.named("{name}").hasValue()', value=True),
            Case("format", f'format.named("{name}").value() == format.{name}()', value=True),
            *(
                Case("format", f"format.{name}() == format.{other}()", value=False)
                for other in FORMATS
                if other != name
            ),
        ]
    ),
]

LISTS = [
    *_values("lists", test_kubernetes_libraries.LISTS),
    *_values(
        "lists",
        [
            ("[1, 2, 2, 3].indexOf(2)", 1),
            ("['a', 'b', 'b', 'c'].lastIndexOf('b')", 2),
            ("[1.0].indexOf(1.1)", -1),
            ("[].indexOf('string')", -1),
        ],
    ),
    *(  # lists.go documents includes(); Kubernetes 1.34's has it not (it came later)
        Case("lists", expression, compile_error="includes")
        for expression in [
            "[1, 2, 3].includes(2)",
            "[1, 2, 3].includes(4)",
            "'model-a'.includes('model-a')",
            "'model-a'.includes('model-b')",
        ]
    ),
    Case("lists", "[].min()", error="min called on empty list"),
    Case("lists", "[].max()", error="max called on empty list"),
]

REGEX = [
    *_values("regex", test_kubernetes_libraries.REGEX),
    Case("regex", "'abc'.find('[')", compile_error="error parsing regexp"),  # a constant pattern
]
URLS = [
    *_values("urls", test_kubernetes_libraries.URL),
    Case("urls", "url('https://a:b:c/')", error=""),
    Case("urls", "url('../relative-path')", error=""),
    Case("urls", "url('/a') < url('/b')", compile_error=""),
]
SEMVER = [
    *_values("semver", test_kubernetes_libraries.SEMVER),
    *(
        Case("semver", f"semver('{text}')", error="")
        for text in ["200K", "Three", "Mi", "1.0.0-01"]
    ),
]
SETS = [
    *_values("sets", test_kubernetes_libraries.SETS),
    *_true(
        "sets",
        [
            "sets.contains(['a', 'b'], [])",
            "sets.contains(['a', 'b'], ['b'])",
            "!sets.contains(['a', 'b'], ['c'])",
            "sets.equivalent([], [])",
            "sets.equivalent(['c', 'b', 'a'], ['b', 'c', 'a'])",
            "!sets.equivalent(['a', 'b'], ['b', 'c'])",
            "sets.intersects(['a', 'b'], ['b', 'c'])",
            "!sets.intersects([], [])",
            "!sets.intersects(['a', 'b'], [])",
            "!sets.intersects(['a', 'b'], ['c', 'd'])",
            "sets.contains([1, 2], [2])",
            "sets.contains([true, false], [false])",
            "sets.contains([1.25, 1.5], [1.5])",
            "sets.contains([{'a': 1}, {'b': 2}], [{'b': 2}])",
            "sets.contains([[1, 2], [3, 4]], [[3, 4]])",
            "sets.contains([timestamp('2000-01-01T00:00:00.000+01:00'), timestamp('2012-01-01T00:00:00.000+01:00')], [timestamp('2012-01-01T00:00:00.000+01:00')])",
            "sets.contains([duration('1h'), duration('2h')], [duration('2h')])",
            "sets.equivalent([1, 2], [1, 2])",
            "sets.equivalent([true, false], [true, false])",
            "sets.equivalent([1.25, 1.5], [1.25, 1.5])",
            "sets.equivalent([{'a': 1}, {'b': 2}], [{'a': 1}, {'b': 2}])",
            "sets.equivalent([[1, 2], [3, 4]], [[1, 2], [3, 4]])",
            "sets.equivalent([timestamp('2012-01-01T00:00:00.000+01:00')], [timestamp('2012-01-01T00:00:00.000+01:00')])",
            "sets.equivalent([duration('1h'), duration('2h')], [duration('1h'), duration('2h')])",
            "sets.intersects([1, 2], [2])",
            "sets.intersects([true, false], [false])",
            "sets.intersects([1.25, 1.5], [1.5])",
            "sets.intersects([{'a': 1}, {'b': 2}], [{'b': 2}])",
            "sets.intersects([[1, 2], [3, 4]], [[3, 4]])",
            "sets.intersects([timestamp('2000-01-01T00:00:00.000+01:00'), timestamp('2012-01-01T00:00:00.000+01:00')], [timestamp('2012-01-01T00:00:00.000+01:00')])",
            "sets.intersects([duration('1h'), duration('2h')], [duration('2h')])",
        ],
    ),
]

STRINGS = _true("strings ext", test_strings.CASES)
LISTS_EXT = _true("lists ext", test_cel_go_extensions.LISTS)
COMPREHENSIONS = [
    *_true("two-variable comprehensions", test_cel_go_extensions.COMPREHENSIONS),
    *_true(
        "two-variable comprehensions",
        [
            "cel.bind(l, ['hello', 'goodbye', 'hello!', 'goodbye'], l.exists_one(i, v, v.startsWith('hello') && l[?(i+1)].optMap(next, next == \"goodbye\").orValue(false))) == false",
            "['Hello', 'world'].transformMap(i, v, [v.lowerAscii()]) == {0: ['hello'], 1: ['world']}",
            "// round-tripping example\n['world', 'Hello'].transformMap(i, v, [v.lowerAscii()])\n  .transformList(k, v, v) // extract the list back form the map\n  .flatten()\n  .sort() == ['hello', 'world']",
            "[1, 2, 3].transformMap(indexVar, valueVar, (indexVar * valueVar) + valueVar) == {0: 1, 1: 4, 2: 9}",
            "[1, 2, 3].transformMap(indexVar, valueVar, indexVar % 2 == 0, (indexVar * valueVar) + valueVar) == {0: 1, 2: 9}",
            "\"key1:value1 key2:value2 key3:value3\".split(\" \").transformMapEntry(i, v, cel.bind(entry, v.split(\":\"), entry.size() == 2 ? {entry[0]: entry[1]} : {})) == {'key1': 'value1', 'key2': 'value2', 'key3': 'value3'}",
            "\"key1:value1:extra key2:value2 key3\".split(\" \").transformMapEntry(i, v, cel.bind(entry, v.split(\":\"), {?entry[0]: entry[?1]})) == {'key1': 'value1', 'key2': 'value2'}",
            "{'hello': 'world', 'hello!': 'worlds'}.exists_one(k, v, k.startsWith('hello') && v.endsWith('world'))",
            "{'hello': 'world', 'hello!': 'wow, world'}.exists_one(k, v, k.startsWith('hello') && v.endsWith('world')) == false",
            "{'hello': 'world', 'goodbye': 'cruel world'}.transformMap(k, v, \"%s, %s!\".format([k, v])) == {'hello': 'hello, world!', 'goodbye': 'goodbye, cruel world!'}",
            "dyn({'hello': 'world', 'goodbye': 'cruel world'}).transformMap(k, v, \"%s, %s!\".format([k, v])) == {'hello': 'hello, world!', 'goodbye': 'goodbye, cruel world!'}",
            "{'hello': 'world', 'goodbye': 'cruel world'}.transformMap(k, v, v.startsWith('world'), \"%s, %s!\".format([k, v])) == {'hello': 'hello, world!'}",
            "{'hello': 'world', 'greetings': 'tacocat'}.transformMapEntry(k, v, {}) == {}",
            "[].transformMap(k, v, v + 1) == {}",
            "{}.transformMap(k, v, v + 1) == {}",
            "{1: 2}.transformMap(k, v, v + 1) == {1: 3}",
            "{1: 2, 3: 4, 5: 6}.transformMap(k, v, k % 3 == 0, v + 1) == {3: 5}",
            "{1: 2}.transformMapEntry(k, v, {v: k}) == {2: 1}",
        ],
    ),
    Case(
        "two-variable comprehensions",
        "{'greeting': 'aloha', 'farewell': 'aloha'}.transformMapEntry(keyVar, valueVar, {valueVar: keyVar})",
        error="insert failed: key aloha already exists",
    ),
    *(  # cel-go's test environment has the strings extension's reverse(); Kubernetes 1.34's not
        Case("two-variable comprehensions", expression, compile_error="reverse")
        for expression in [
            "{'hello': 'world', 'greetings': 'tacocat'}.transformMapEntry(k, v, {k.reverse(): v.reverse()}) == {'olleh': 'dlrow', 'sgniteerg': 'tacocat'}",
            "{'hello': 'world', 'greetings': 'tacocat'}.transformMapEntry(k, v, v.reverse() == v, {k.reverse(): v.reverse()}) == {'sgniteerg': 'tacocat'}",
        ]
    ),
]

OPTIONALS = [
    *_values(
        "optionals",
        [
            ("has({'foo': optional.none()}.foo)", True),
            ("has({'foo': optional.none()}.foo.value)", False),
            ("has({?'foo': optional.none()}.foo)", False),
            ("type(optional.none()) == optional_type", True),
        ],
    ),
    Case("optionals", "has({?'foo': optional.none()}.foo.value)", error="no such key: foo"),
    *(
        Case("optionals", expression, optional=None)
        for expression in [
            "{}.?invalid",
            "{'null_field': dyn(null)}.?null_field.?nested",
            "{'zero_field': dyn(0)}.?zero_field.?invalid",
            "{0: dyn(0)}[?0].?invalid",
            "{true: dyn(0)}[?false].?invalid",
            "{true: dyn(0)}[?true].?invalid",
        ]
    ),
]


# ---- kubernetes/kubernetes staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/
# validation_test.go (the read version's TestValidationExpressions): the library sections, with
# the test's object as ``object`` (``self`` there). Left out: the lists of durations and dates,
# which are strings in a request's JSON and become durations and timestamps only through a CRD
# schema's formats.


def _crd(
    library: str, data: Any, valid: list[str], errors: dict[str, str] | None = None
) -> list[Case]:
    def ported(expression: str) -> str:
        return re.sub(r"\bself\b", "object", expression)

    cases = [Case(library, ported(e), value=True, data=data) for e in valid]
    for expression, message in (errors or {}).items():
        compile_time = message.startswith(("found no matching overload", "compile error"))
        cases.append(
            Case(
                library,
                ported(expression),
                data=data,
                **{"compile_error" if compile_time else "error": re.escape(message)},
            )
        )
    return cases


_LISTS_DATA = {
    "ints": [1, 2, 2, 3],
    "unsortedInts": [2, 1],
    "emptyInts": [],
    "doubles": [1.0, 2.0, 2.0, 3.0],
    "unsortedDoubles": [2.0, 1.0],
    "emptyDoubles": [],
    "intBackedDoubles": [1, 2, 2, 3],
    "unsortedIntBackedDDoubles": [2, 1],
    "emptyIntBackedDDoubles": [],
    "strings": ["a", "b", "b", "c"],
    "unsortedStrings": ["b", "a"],
    "emptyStrings": [],
    "objs": [
        {"f1": "a", "f2": "a"},
        {"f1": "a", "f2": "b"},
        {"f1": "a", "f2": "b"},
        {"f1": "a", "f2": "c"},
    ],
}
CRD_LISTS = _crd(
    "lists",
    _LISTS_DATA,
    [
        "self.ints.sum() == 8",
        "self.ints.min() == 1",
        "self.ints.max() == 3",
        "self.emptyInts.sum() == 0",
        "self.ints.isSorted()",
        "self.emptyInts.isSorted()",
        "self.unsortedInts.isSorted() == false",
        "self.ints.indexOf(2) == 1",
        "self.ints.lastIndexOf(2) == 2",
        "self.ints.indexOf(10) == -1",
        "self.ints.lastIndexOf(10) == -1",
        "self.doubles.sum() == 8.0",
        "self.doubles.min() == 1.0",
        "self.doubles.max() == 3.0",
        "self.emptyDoubles.sum() == 0.0",
        "self.doubles.isSorted()",
        "self.emptyDoubles.isSorted()",
        "self.unsortedDoubles.isSorted() == false",
        "self.doubles.indexOf(2.0) == 1",
        "self.doubles.lastIndexOf(2.0) == 2",
        "self.doubles.indexOf(10.0) == -1",
        "self.doubles.lastIndexOf(10.0) == -1",
        "self.intBackedDoubles.sum() == 8.0",
        "self.intBackedDoubles.min() == 1.0",
        "self.intBackedDoubles.max() == 3.0",
        "self.emptyIntBackedDDoubles.sum() == 0.0",
        "self.intBackedDoubles.isSorted()",
        "self.unsortedIntBackedDDoubles.isSorted() == false",
        "self.intBackedDoubles.indexOf(2.0) == 1",
        "self.intBackedDoubles.lastIndexOf(2.0) == 2",
        "self.intBackedDoubles.indexOf(10.0) == -1",
        "self.intBackedDoubles.lastIndexOf(10.0) == -1",
        "self.strings.min() == 'a'",
        "self.strings.max() == 'c'",
        "self.strings.isSorted()",
        "self.emptyStrings.isSorted()",
        "self.unsortedStrings.isSorted() == false",
        "self.strings.indexOf('b') == 1",
        "self.strings.lastIndexOf('b') == 2",
        "self.strings.indexOf('x') == -1",
        "self.strings.lastIndexOf('x') == -1",
        "[[1], [2]].indexOf([1]) == 0",
        "[{'a': 1}, {'b': 2}].lastIndexOf({'b': 2}) == 1",
        "self.objs.indexOf(self.objs[1]) == 1",
        "self.objs.lastIndexOf(self.objs[1]) == 2",
        "([0] + self.emptyInts).min() == 0",
        "dyn([]).sum() == 0",
        "dyn([1, 2]).sum() == 3",
        "dyn([1.0, 2.0]).sum() == 3.0",
        "[].sum() == 0",
    ],
    {
        "self.emptyInts.min() == 1": "min called on empty list",
        "self.emptyInts.max() == 3": "max called on empty list",
        "self.emptyDoubles.min() == 1.0": "min called on empty list",
        "self.emptyDoubles.max() == 3.0": "max called on empty list",
        "self.emptyStrings.min() == 'a'": "min called on empty list",
        "self.emptyStrings.max() == 'c'": "max called on empty list",
        "['a', 'b'].sum() == 'c'": "found no matching overload for 'sum' applied to 'list(string).()",
        "[[1], [2]].min() == [1]": "found no matching overload for 'min' applied to 'list(list(int)).()",
        "[{'a': 1}, {'b': 2}].max() == {'b': 2}": "found no matching overload for 'max' applied to 'list(map(string, int)).()",
    },
)
CRD_REGEX = _crd(
    "regex",
    {"str": "this is a 123 string 456"},
    [
        "self.str.find('[0-9]+') == '123'",
        "self.str.find('[0-9]+') != '456'",
        "self.str.find('xyz') == ''",
        "self.str.findAll('[0-9]+') == ['123', '456']",
        "self.str.findAll('[0-9]+', 0) == []",
        "self.str.findAll('[0-9]+', 1) == ['123']",
        "self.str.findAll('[0-9]+', 2) == ['123', '456']",
        "self.str.findAll('[0-9]+', 3) == ['123', '456']",
        "self.str.findAll('[0-9]+', -1) == ['123', '456']",
        "self.str.findAll('xyz') == []",
        "self.str.findAll('xyz', 1) == []",
    ],
    {
        "self.str.find(')') == ''": "compile error: program instantiation failed: error parsing regexp: unexpected ): `)`",
        "self.str.findAll(')') == []": "compile error: program instantiation failed: error parsing regexp: unexpected ): `)`",
        "self.str.findAll(')', 1) == []": "compile error: program instantiation failed: error parsing regexp: unexpected ): `)`",
        "self.str.matches('x++')": "compile error: invalid matches argument",
    },
)
CRD_URLS = _crd(
    "urls",
    {"url": "https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor"},
    [
        "url('/path').getScheme() == ''",
        "url('https://example.com/').getScheme() == 'https'",
        "url('https://example.com:80/').getHost() == 'example.com:80'",
        "url('https://example.com/').getHost() == 'example.com'",
        "url('https://[::1]:80/').getHost() == '[::1]:80'",
        "url('https://[::1]/').getHost() == '[::1]'",
        "url('/path').getHost() == ''",
        "url('https://example.com:80/').getHostname() == 'example.com'",
        "url('https://127.0.0.1/').getHostname() == '127.0.0.1'",
        "url('https://[::1]/').getHostname() == '::1'",
        "url('/path').getHostname() == ''",
        "url('https://example.com:80/').getPort() == '80'",
        "url('https://example.com/').getPort() == ''",
        "url('/path').getPort() == ''",
        "url('https://example.com/path').getEscapedPath() == '/path'",
        "url('https://example.com/with space/').getEscapedPath() == '/with%20space/'",
        "url('https://example.com').getEscapedPath() == ''",
        "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': ['a'], 'k2': ['b', 'c']}",
        "url('https://example.com/path?key with spaces=value with spaces').getQuery() == { 'key with spaces': ['value with spaces']}",
        "url('https://example.com/path?').getQuery() == {}",
        "url('https://example.com/path').getQuery() == {}",
        "url(self.url).getScheme() == 'https'",
        "url(self.url).getHost() == 'kubernetes.io:80'",
        "url(self.url).getHostname() == 'kubernetes.io'",
        "url(self.url).getPort() == '80'",
        "url(self.url).getEscapedPath() == '/docs/home'",
        "url(self.url).getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
        "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
        "isURL('/path') == true",
        "isURL('https://a:b:c/') == false",
        "isURL('../relative-path') == false",
    ],
)
CRD_OPTIONALS = _crd(
    "optionals",
    {"presentObj": {"presentStr": "value"}, "m": {"k": "v"}, "l": ["a"]},
    [
        "self.?presentObj.?presentStr == optional.of('value')",
        "self.presentObj.?presentStr == optional.of('value')",
        "self.presentObj.?presentStr.or(optional.of('nope')) == optional.of('value')",
        "self.presentObj.?presentStr.orValue('') == 'value'",
        "self.presentObj.?presentStr.hasValue() == true",
        "self.presentObj.?presentStr.optMap(v, v == 'value').hasValue()",
        "self.?absentObj.?absentStr == optional.none()",
        "self.?absentObj.?absentStr.or(optional.of('nope')) == optional.of('nope')",
        "self.?absentObj.?absentStr.orValue('nope') == 'nope'",
        "self.?absentObj.?absentStr.hasValue() == false",
        "self.?absentObj.?absentStr.optMap(v, v == 'value').hasValue() == false",
        "self.m[?'k'] == optional.of('v')",
        "self.m[?'k'].or(optional.of('nope')) == optional.of('v')",
        "self.m[?'k'].orValue('') == 'v'",
        "self.m[?'k'].hasValue() == true",
        "self.m[?'k'].optMap(v, v == 'v').hasValue()",
        "self.m[?'x'] == optional.none()",
        "self.m[?'x'].or(optional.of('nope')) == optional.of('nope')",
        "self.m[?'x'].orValue('nope') == 'nope'",
        "self.m[?'x'].hasValue() == false",
        "self.l[?0] == optional.of('a')",
        "self.l[?1] == optional.none()",
        "self.l[?0].orValue('') == 'a'",
        "self.l[?0].hasValue() == true",
        "self.l[?0].optMap(v, v == 'a').hasValue()",
        "self.l[?1].or(optional.of('nope')) == optional.of('nope')",
        "self.l[?1].orValue('nope') == 'nope'",
        "self.l[?1].hasValue() == false",
        "optional.ofNonZeroValue(1).hasValue()",
        "optional.ofNonZeroValue(uint(1)).hasValue()",
        "optional.ofNonZeroValue(1.1).hasValue()",
        "optional.ofNonZeroValue('a').hasValue()",
        "optional.ofNonZeroValue(true).hasValue()",
        "optional.ofNonZeroValue(['a']).hasValue()",
        "optional.ofNonZeroValue({'k': 'v'}).hasValue()",
        "optional.ofNonZeroValue(timestamp('2011-08-18T00:00:00.000+01:00')).hasValue()",
        "optional.ofNonZeroValue(duration('19h3m37s10ms')).hasValue()",
        "optional.ofNonZeroValue(null) == optional.none()",
        "optional.ofNonZeroValue(0) == optional.none()",
        "optional.ofNonZeroValue(uint(0)) == optional.none()",
        "optional.ofNonZeroValue(0.0) == optional.none()",
        "optional.ofNonZeroValue('') == optional.none()",
        "optional.ofNonZeroValue(false) == optional.none()",
        "optional.ofNonZeroValue([]) == optional.none()",
        "optional.ofNonZeroValue({}) == optional.none()",
        "optional.ofNonZeroValue(timestamp('0001-01-01T00:00:00.000+00:00')) == optional.none()",
        "optional.ofNonZeroValue(duration('0s')) == optional.none()",
        "{?'k': optional.none(), 'k2': 'v2'} == {'k2': 'v2'}",
        "{?'k': optional.of('v'), 'k2': 'v2'} == {'k': 'v', 'k2': 'v2'}",
        "['a', ?optional.none(), 'c'] == ['a', 'c']",
        "['a', ?optional.of('v'), 'c'] == ['a', 'v', 'c']",
    ],
    {"self.absentObj.?absentStr == optional.none()": "no such key: absentObj"},
)
CRD_QUANTITY = _crd(
    "quantity",
    {"val1": "20", "val2": "200M"},
    [
        "isQuantity(self.val1)",
        "isQuantity(self.val2)",
        'isQuantity("20Mi")',
        'quantity(self.val2) == quantity("0.2G") && quantity("0.2G") == quantity("200M")',
        'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")',
        'quantity(self.val1).isLessThan(quantity("100M"))',
        'quantity(self.val2).isGreaterThan(quantity("50M"))',
        'quantity(self.val2).compareTo(quantity("0.2G")) == 0',
        'quantity("50k").add(quantity(self.val1)) == quantity("50.02k")',
        'quantity("50k").sub(quantity(self.val1)) == quantity("49980")',
        "quantity(self.val1).isInteger()",
    ],
)
CRD_NET = _crd(
    "ip",
    None,
    [
        'isIP("192.168.0.1")',
        'ip.isCanonical("127.0.0.1")',
        'ip("192.168.0.1").family() > 0',
        'ip("0.0.0.0").isUnspecified()',
        'ip("127.0.0.1").isLoopback()',
        'ip("224.0.0.1").isLinkLocalMulticast()',
        'ip("192.168.0.1").isGlobalUnicast()',
        'type(ip("192.168.0.1")) == net.IP',
    ],
) + _crd(
    "cidr",
    None,
    [
        'cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))',
        'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")',
        'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))',
        'type(cidr("2001:db8::/32").ip()) == net.IP',
        "cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()",
        "cidr('192.168.0.0/16').prefixLength() == 16",
        "cidr('::1/128').ip().family() == 6",
    ],
)

CASES: list[Case] = [
    *QUANTITY,
    *CRD_QUANTITY,
    *REGEX,
    *CRD_REGEX,
    *LISTS,
    *CRD_LISTS,
    *URLS,
    *CRD_URLS,
    *IP,
    *CIDR,
    *CRD_NET,
    *FORMAT,
    *SEMVER,
    *SETS,
    *STRINGS,
    *LISTS_EXT,
    *COMPREHENSIONS,
    *OPTIONALS,
    *CRD_OPTIONALS,
]
LIBRARIES = list(dict.fromkeys(case.library for case in CASES))


def _evaluate(backend: Backend, expression: str, data: Any = None) -> Any:
    variables = {} if data is None else {"object": data}
    return backend.evaluate(backend.compile(expression), backend.activation(variables))


def outcome(backend: Backend, case: Case) -> str:
    """``pass``, ``refused`` (cel-python declines the expression when compiling, naming
    what it cannot run) or ``fail: why``."""
    try:
        if case.compile_error is not None:
            try:
                backend.compile(case.expression)
            except CelCompileError:
                return "pass"  # the wording is cel-cpp's checker's, not cel-go's
            return "fail: compiled"
        if case.optional is not _OPTIONAL:
            present = _evaluate(backend, f"({case.expression}).hasValue()", case.data)
            if present is not (case.optional is not None):
                return f"fail: hasValue() is {present}"
            if case.optional is not None:
                value = _evaluate(backend, f"({case.expression}).value()", case.data)
                return "pass" if value == case.optional else f"fail: value() is {value!r}"
            return "pass"
        if case.equals is not None:
            same = _evaluate(backend, f"({case.expression}) == ({case.equals})", case.data)
            return "pass" if same is True else f"fail: not equal to {case.equals}"
        value = _evaluate(backend, case.expression, case.data)
    except CelCompileError as exc:
        if backend.name == "cel-python" and str(exc).startswith("cel-python"):
            return f"refused: {exc}"
        return f"fail: compile error {exc}"
    except CelEvalError as exc:
        if case.error is not None and re.search(case.error, str(exc)):
            return "pass"
        return f"fail: error {exc}"
    if case.error is not None:
        return f"fail: {value!r}, not an error"
    if value == case.value and type(value) is type(case.value):
        return "pass"
    return f"fail: {value!r}"


_REFUSED = re.compile(r"cel-python cannot run (.*?); use")


def _constructs(refusal: str) -> list[str]:
    """What a cel-python refusal names."""
    found = _REFUSED.search(refusal)
    if found is not None:
        return found.group(1).split(", ")
    return ["optional syntax (.? [?])"] if "parser cannot read" in refusal else [refusal]


def counts() -> tuple[dict[tuple[str, str], Counter[str]], dict[str, Counter[str]]]:
    """(library, backend) -> how many cases passed, were refused, failed; and per library,
    the constructs cel-python refused (how many cases named each)."""
    found: dict[tuple[str, str], Counter[str]] = {}
    refused: dict[str, Counter[str]] = {}
    for name in BACKENDS:
        backend = make_backend(name)
        for case in CASES:
            result = outcome(backend, case)
            found.setdefault((case.library, name), Counter())[result.split(":")[0]] += 1
            if result.startswith("refused"):
                refused.setdefault(case.library, Counter()).update(_constructs(result))
    return found, refused


def table() -> str:
    """The CEL guide's table (docs/cel.md): library x backend -> passed / cases, refused, failed."""
    found, refused = counts()
    lines = [
        "| library | cases | cel-expr passes | cel-python passes | cel-python refuses at load "
        "| constructs cel-python refuses |",
        "|---|---:|---:|---:|---:|---|",
    ]
    totals: Counter[str] = Counter()
    for library in LIBRARIES:
        expr, python = found[(library, "cel-expr")], found[(library, "cel-python")]
        cases = sum(expr.values())
        totals.update(
            cases=cases, expr=expr["pass"], python=python["pass"], refused=python["refused"]
        )
        constructs = ", ".join(f"`{c}`" for c in sorted(refused.get(library, {})))
        lines.append(
            f"| {library} | {cases} | {expr['pass']} | {python['pass']} | {python['refused']} "
            f"| {constructs} |"
        )
    lines.append(
        f"| **all** | {totals['cases']} | {totals['expr']} | {totals['python']} | "
        f"{totals['refused']} | |"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(table() + "\n")

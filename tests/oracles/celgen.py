# ruff: noqa: E501 - one generator alternative a line, as CEL text
"""CEL expressions and objects as an attacker and a careless rule author write them.

A seeded ``random.Random`` builds them in bulk (hypothesis' per-example cost is too high for
ten thousand cases a run): typed sub-expressions, with a mistyped operand now and then, over
every operator, conversion and library function Kubernetes gives a ValidatingAdmissionPolicy,
with boundary numbers, unicode, escapes, nulls and deep nesting, and over a random object.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

INT64 = 2**63
INTS = [
    0,
    1,
    -1,
    2,
    7,
    -7,
    10,
    255,
    256,
    2**31 - 1,
    -(2**31),
    2**32,
    2**53,
    2**53 + 1,
    INT64 - 1,
    -INT64,
    INT64 - 2,
    -INT64 + 1,
    1000000,
    86400,
]
DOUBLES = [
    "0.0",
    "-0.0",
    "1.0",
    "-1.5",
    "0.1",
    "1e308",
    "-1e308",
    "1e-320",
    "9.223372036854776e18",
    "-9.223372036854776e18",
    "1.8446744073709552e19",
    "2.5",
    "3.14",
    "1e6",
    "123456789.125",
    "double('NaN')",
    "double('inf')",
    "double('-inf')",
]
STRINGS = [
    "",
    "a",
    "abc",
    "ABC",
    "Hello World",
    " x ",
    "\u00e9t\u00e9",
    "\U0001f600",
    "a\U0001f600b",
    "\u0130",
    "\u00df",
    "ǅ",
    "日本語",
    "a,b,,c",
    "1",
    "-1",
    "1.5",
    "true",
    "false",
    "10.0.0.0/8",
    "192.168.0.1",
    "::1",
    "2001:db8::/32",
    "1Gi",
    "500m",
    "1.2.3",
    "v1.2.3",
    "https://example.com:8080/p?q=1#f",
    "1h30m",
    "2023-01-01T00:00:00Z",
    "%",
    "%s",
    "\t\n",
    "\\",
    "'",
    '"',
    "a.b-c_d",
    "ALLCAPS",
    "x" * 70,
    "nul?",
    "k8s.io/name",
    "é",
]
ESCAPES = [
    "\\n",
    "\\t",
    "\\\\",
    "\\'",
    '\\"',
    "\\?",
    "\\x41",
    "\\X4A",
    "\\u00e9",
    "\\U0001F600",
    "\\101",
    "\\a",
    "\\b",
    "\\f",
    "\\v",
    "\\r",
    "\\`",
]
FORMATS = [
    "%s",
    "%d",
    "%f",
    "%.2f",
    "%e",
    "%x",
    "%X",
    "%o",
    "%b",
    "%.3e",
    "%5s",
    "%%",
    "%q",
    "%.0f",
    "%.10f",
]
TIMESTAMPS = [
    "2023-01-01T00:00:00Z",
    "1970-01-01T00:00:00.123456789Z",
    "9999-12-31T23:59:59.999999999Z",
    "0001-01-01T00:00:00Z",
    "2023-06-15T12:30:00+05:30",
    "2023-13-01T00:00:00Z",
]
DURATIONS = [
    "1s",
    "1h30m",
    "-1.5s",
    "1ns",
    "315576000000s",
    "315576000001s",
    "0s",
    "1us",
    "2562047h",
    "x",
]
IDENTS = ["a", "b", "m", "n", "x", "s", "l", "name", "spec", "items", "é", "null", "in"]


def _quote(text: str, rng: random.Random) -> str:
    choice = rng.random()
    if choice < 0.15:
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"
    if choice < 0.2:
        return "r'" + text.replace("'", "").replace("\\", "").replace("\n", "") + "'"
    if choice < 0.25:
        return "'''" + text.replace("\\", "\\\\").replace("'", "") + "'''"
    if choice < 0.35:
        return '"' + rng.choice(["", "x"]) + rng.choice(ESCAPES) + rng.choice(["", "y"]) + '"'
    return json.dumps(text, ensure_ascii=rng.random() < 0.3)


class Generator:
    """Random typed CEL expressions; ``case()`` is one ``{"expr", "vars"}``."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.obj: Any = {}

    # values (the object under review)
    def json_value(self, depth: int) -> Any:
        r = self.rng
        kind = r.random()
        if depth <= 0 or kind < 0.55:
            return r.choice(
                [
                    lambda: r.choice(INTS),
                    lambda: r.choice([0.5, -0.0, 1e300, 2.0, 1.0, 3.25, 9.007199254740993e15]),
                    lambda: r.choice(STRINGS),
                    lambda: r.choice([True, False]),
                    lambda: None,
                ]
            )()
        if kind < 0.75:
            return [self.json_value(depth - 1) for _ in range(r.randint(0, 4))]
        return {r.choice(IDENTS): self.json_value(depth - 1) for _ in range(r.randint(0, 4))}

    def path(self) -> str:
        """A field path into the object: often present, sometimes absent or mistyped."""
        node, text = self.obj, "object"
        for _ in range(self.rng.randint(1, 4)):
            if isinstance(node, dict) and node and self.rng.random() < 0.85:
                key = self.rng.choice(sorted(node))
                node = node[key]
                text += (
                    f".{key}"
                    if key.isascii() and key.isidentifier() and key not in ("null", "in")
                    else f"[{json.dumps(key)}]"
                )
            elif isinstance(node, list) and node and self.rng.random() < 0.8:
                index = self.rng.randrange(len(node))
                node = node[index]
                text += f"[{index}]"
            else:
                text += self.rng.choice([".missing", "[0]", '["a"]', "[-1]", ".a"])
                break
        return text

    # expressions by type
    def expr(self, kind: str, depth: int) -> str:
        r = self.rng
        if r.random() < 0.04:  # a careless author's operand of another type
            kind = r.choice(["int", "uint", "double", "string", "bool", "list", "map", "bytes"])
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(kind)
        d = depth - 1
        e = self.expr
        options: list[Callable[[], str]] = [
            lambda: f"({e('bool', d)} ? {e(kind, d)} : {e(kind, d)})",
            lambda: f"dyn({e(kind, d)})",
            self.path,
        ]
        if kind == "int":
            options += [
                lambda: f"({e('int', d)} {r.choice('+-*/%')} {e('int', d)})",
                lambda: f"-{e('int', d)}",
                lambda: (
                    f"int({e(r.choice(['double', 'string', 'uint', 'int', 'timestamp', 'bool']), d)})"
                ),
                lambda: f"size({e(r.choice(['string', 'bytes', 'list', 'map']), d)})",
                lambda: f"{e('string', d)}.size()",
                lambda: f"{e('string', d)}.indexOf({e('string', d)})",
                lambda: (
                    f"{e('string', d)}.lastIndexOf({e('string', d)}{', ' + e('int', d) if r.random() < 0.3 else ''})"
                ),
                lambda: f"{e('list', d)}.sum()",
                lambda: f"{e('list', d)}.min()",
                lambda: f"{e('list', d)}.max()",
                lambda: f"{e('list', d)}.indexOf({e('int', d)})",
                lambda: (
                    f"{e('timestamp', d)}.get{r.choice(['FullYear', 'Month', 'Date', 'DayOfMonth', 'DayOfWeek', 'DayOfYear', 'Hours', 'Minutes', 'Seconds', 'Milliseconds'])}({r.choice(['', repr('UTC'), repr('+05:30'), repr('America/New_York'), repr('bad')])})"
                ),
                lambda: (
                    f"{e('duration', d)}.get{r.choice(['Hours', 'Minutes', 'Seconds', 'Milliseconds'])}()"
                ),
                lambda: f"quantity({self.quantity()}).asInteger()",
                lambda: f"quantity({self.quantity()}).compareTo(quantity({self.quantity()}))",
                lambda: f"semver({self.semver()}).major()",
                lambda: f"cidr({self.cidr()}).prefixLength()",
                lambda: f"ip({self.ip()}).family()",
                lambda: f"math.{r.choice(['abs', 'sign'])}({e('int', d)})",
                lambda: (
                    f"math.{r.choice(['bitAnd', 'bitOr', 'bitXor', 'bitShiftLeft', 'bitShiftRight'])}({e('int', d)}, {e('int', d)})"
                ),
                lambda: f"math.{r.choice(['greatest', 'least'])}({e('int', d)}, {e('int', d)})",
            ]
        elif kind == "uint":
            options += [
                lambda: f"({e('uint', d)} {r.choice('+-*/%')} {e('uint', d)})",
                lambda: f"uint({e(r.choice(['double', 'string', 'int']), d)})",
            ]
        elif kind == "double":
            options += [
                lambda: f"({e('double', d)} {r.choice('+-*/')} {e('double', d)})",
                lambda: f"-{e('double', d)}",
                lambda: f"double({e(r.choice(['int', 'string', 'uint']), d)})",
                lambda: f"quantity({self.quantity()}).asApproximateFloat()",
                lambda: (
                    f"math.{r.choice(['ceil', 'floor', 'round', 'trunc', 'abs', 'sqrt'])}({e('double', d)})"
                ),
            ]
        elif kind == "string":
            options += [
                lambda: f"({e('string', d)} + {e('string', d)})",
                lambda: (
                    f"string({e(r.choice(['int', 'uint', 'double', 'bytes', 'bool', 'timestamp', 'duration', 'string']), d)})"
                ),
                lambda: (
                    f"{e('string', d)}.{r.choice(['lowerAscii', 'upperAscii', 'trim', 'reverse'])}()"
                ),
                lambda: f"{e('string', d)}.charAt({e('int', d)})",
                lambda: (
                    f"{e('string', d)}.substring({e('int', d)}{', ' + e('int', d) if r.random() < 0.5 else ''})"
                ),
                lambda: (
                    f"{e('string', d)}.replace({e('string', d)}, {e('string', d)}{', ' + e('int', d) if r.random() < 0.3 else ''})"
                ),
                lambda: f"{e('list', d)}.join({e('string', d) if r.random() < 0.5 else ''})",
                lambda: (
                    f"{_quote(r.choice(FORMATS) + r.choice(['', ' ', ' %s']), r)}.format({self.format_args(d)})"
                ),
                lambda: f"strings.quote({e('string', d)})",
                lambda: f"{e('string', d)}.find({self.regex()})",
                lambda: (
                    f"quantity({self.quantity()}).sub(quantity({self.quantity()})).isInteger() ? 'i' : 'f'"
                ),
                lambda: f"string(cidr({self.cidr()}).masked())",
                lambda: f"string(cidr({self.cidr()}).ip())",
                lambda: f"string(ip({self.ip()}))",
                lambda: (
                    f"url({self.url()}).{r.choice(['getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath'])}()"
                ),
                lambda: (
                    f"{e('string', d)}.split({e('string', d)}{', ' + e('int', d) if r.random() < 0.3 else ''}).join('|')"
                ),
                lambda: (
                    f"string(format.{r.choice(['dns1123Label', 'dns1123Subdomain', 'labelValue', 'qualifiedName', 'uuid', 'uri', 'date', 'datetime', 'byte'])}().validate({e('string', d)}))"
                ),
            ]
        elif kind == "bool":
            options += [
                lambda: f"({e('bool', d)} {r.choice(['&&', '||'])} {e('bool', d)})",
                lambda: f"!{e('bool', d)}",
                lambda: self.compare(d),
                lambda: (
                    f"has({self.path()})"
                    if "[" not in (p := self.path())
                    else f"has(object.{r.choice(IDENTS[:6])})"
                ),
                lambda: (
                    f"({e('string', d)} {r.choice(['in', '=='])} {e(r.choice(['list', 'map', 'string']), d)})"
                ),
                lambda: f"({e('int', d)} in {e(r.choice(['list', 'map']), d)})",
                lambda: (
                    f"{e('string', d)}.{r.choice(['startsWith', 'endsWith', 'contains', 'matches'])}({e('string', d) if r.random() < 0.6 else self.regex()})"
                ),
                lambda: (
                    f"{e('list', d)}.{r.choice(['all', 'exists', 'exists_one'])}(x, {self.about_x(d)})"
                ),
                lambda: (
                    f"{e('map', d)}.{r.choice(['all', 'exists'])}(k, {r.choice(['k == ', 'k != ', 'k < '])}{e('string', d)})"
                ),
                lambda: (
                    f"{e(r.choice(['list', 'map']), d)}.{r.choice(['all', 'exists', 'existsOne', 'exists_one'])}(i, x, {self.about_ix(d)})"
                ),
                lambda: f"bool({e('string', d)})",
                lambda: f"{e('list', d)}.isSorted()",
                lambda: (
                    f"sets.{r.choice(['contains', 'equivalent', 'intersects'])}({e('list', d)}, {e('list', d)})"
                ),
                lambda: (
                    f"cidr({self.cidr()}).{r.choice(['containsIP', 'containsCIDR'])}({r.choice([self.ip(), self.cidr()])})"
                ),
                lambda: f"cidr({self.cidr()}).containsCIDR(cidr({self.cidr()}))",
                lambda: (
                    f"ip({self.ip()}).{r.choice(['isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast'])}()"
                ),
                lambda: (
                    f"{r.choice(['isIP', 'isCIDR', 'isURL', 'isQuantity', 'isSemver'])}({e('string', d)})"
                ),
                lambda: f"ip.isCanonical({self.ip()})",
                lambda: (
                    f"quantity({self.quantity()}).{r.choice(['isGreaterThan', 'isLessThan'])}(quantity({self.quantity()}))"
                ),
                lambda: (
                    f"semver({self.semver()}).{r.choice(['isGreaterThan', 'isLessThan'])}(semver({self.semver()}))"
                ),
                lambda: f"{e('bytes', d)} {r.choice(['==', '<', '>='])} {e('bytes', d)}",
                lambda: f"{e('timestamp', d)} {r.choice(['<', '==', '>'])} {e('timestamp', d)}",
                lambda: f"{e('duration', d)} {r.choice(['<', '==', '>'])} {e('duration', d)}",
                lambda: (
                    f"type({e(r.choice(['int', 'string', 'double', 'list', 'map', 'bool', 'uint', 'bytes']), d)}) == {r.choice(['int', 'string', 'double', 'list', 'map', 'bool', 'uint', 'bytes', 'null_type', 'type'])}"
                ),
            ]
        elif kind == "list":
            options += [
                lambda: f"({e('list', d)} + {e('list', d)})",
                lambda: f"{e('list', d)}.map(x, {self.x_expr(d)})",
                lambda: f"{e('list', d)}.filter(x, {self.about_x(d)})",
                lambda: f"{e('list', d)}.{r.choice(['distinct', 'reverse', 'sort', 'flatten'])}()",
                lambda: f"{e('list', d)}.sortBy(x, {self.x_expr(d)})",
                lambda: f"{e('list', d)}.slice({e('int', d)}, {e('int', d)})",
                lambda: f"lists.range({e('int', d)} % 5)",
                lambda: f"{e('string', d)}.split({e('string', d)})",
                lambda: f"{e('string', d)}.findAll({self.regex()})",
                lambda: f"{e('map', d)}.map(k, k)",
                lambda: (
                    f"{e(r.choice(['list', 'map']), d)}.transformList(i, x, {self.about_ix(d) + ', ' if r.random() < 0.4 else ''}{self.x_expr(d)})"
                ),
            ]
        elif kind == "map":
            options += [
                lambda: f"{{{e('string', d)}: {e('int', d)}}}",
                lambda: "object",
                lambda: f"{{{e('string', d)}: {e('int', d)}, {e('string', d)}: {e('int', d)}}}",
                lambda: (
                    f"{e(r.choice(['list', 'map']), d)}.transformMap(i, x, {self.about_ix(d) + ', ' if r.random() < 0.4 else ''}{self.x_expr(d)})"
                ),
                lambda: (
                    f"{e(r.choice(['list', 'map']), d)}.transformMapEntry(i, x, {self.about_ix(d) + ', ' if r.random() < 0.4 else ''}{r.choice(['{x: i}', '{i: x}', '{string(x): i}', '{1: x}', 'x', '{}'])})"
                ),
            ]
        elif kind == "timestamp":
            options += [
                lambda: f"({e('timestamp', d)} {r.choice('+-')} {e('duration', d)})",
                lambda: f"timestamp({e(r.choice(['string', 'int']), d)})",
            ]
        elif kind == "duration":
            options += [
                lambda: f"({e('duration', d)} {r.choice('+-')} {e('duration', d)})",
                lambda: f"({e('timestamp', d)} - {e('timestamp', d)})",
                lambda: f"duration({e('string', d)})",
            ]
        elif kind == "bytes":
            options += [
                lambda: f"bytes({e('string', d)})",
                lambda: f"({e('bytes', d)} + {e('bytes', d)})",
            ]
        return r.choice(options)()

    def leaf(self, kind: str) -> str:
        r = self.rng
        if r.random() < 0.12 and kind not in ("timestamp", "duration"):
            return self.path()
        if kind == "int":
            n = r.choice(INTS)
            return str(n) if n >= 0 or r.random() < 0.5 else f"({n})"
        if kind == "uint":
            return f"{r.choice([0, 1, 7, 2**32, 2**63, 2**64 - 1])}u"
        if kind == "double":
            return r.choice(DOUBLES)
        if kind == "string":
            return _quote(r.choice(STRINGS), r)
        if kind == "bool":
            return r.choice(["true", "false"])
        if kind == "bytes":
            return "b" + _quote(r.choice(STRINGS[:12]), r)
        if kind == "list":
            item = r.choice(["int", "string", "double", "bool", "list", "uint"])
            return "[" + ", ".join(self.leaf(item) for _ in range(r.randint(0, 4))) + "]"
        if kind == "map":
            return (
                "{"
                + ", ".join(
                    f"{_quote(r.choice(IDENTS), r)}: {self.leaf('int')}"
                    for _ in range(r.randint(0, 3))
                )
                + "}"
            )
        if kind == "timestamp":
            return f"timestamp({json.dumps(r.choice(TIMESTAMPS))})"
        if kind == "duration":
            return f"duration({json.dumps(r.choice(DURATIONS))})"
        return "null"

    def compare(self, d: int) -> str:
        r = self.rng
        kinds = r.choice(
            [
                ("int", "int"),
                ("int", "double"),
                ("int", "uint"),
                ("double", "uint"),
                ("string", "string"),
                ("double", "double"),
                ("list", "list"),
                ("map", "map"),
                ("bool", "bool"),
                ("int", "string"),
                ("null", "map"),
            ]
        )
        return f"({self.expr(kinds[0], d)} {r.choice(['==', '!=', '<', '<=', '>', '>='])} {self.expr(kinds[1], d)})"

    def about_x(self, d: int) -> str:
        r = self.rng
        return r.choice(
            [
                f"x {r.choice(['==', '!=', '>', '<'])} {self.expr(r.choice(['int', 'string', 'double']), d)}",
                "type(x) == string",
                "x == null",
                "has(x.a)",
                "size(x) > 1",
            ]
        )

    def about_ix(self, d: int) -> str:
        """A two-variable macro's predicate: about the index or key ``i``, or the item ``x``."""
        r = self.rng
        return r.choice(
            [
                self.about_x(d),
                f"i {r.choice(['==', '!=', '<'])} {self.expr(r.choice(['int', 'string']), d)}",
                "type(i) == int",
                "i == x",
                "x",
            ]
        )

    def x_expr(self, d: int) -> str:
        r = self.rng
        return r.choice(
            ["x", "x + 1", "string(x)", "[x]", "x * 2", "type(x) == int", "{'k': x}", "dyn(x)"]
        )

    def format_args(self, d: int) -> str:
        r = self.rng
        items = [
            self.expr(
                r.choice(["int", "double", "string", "bool", "list", "uint", "bytes", "map"]),
                max(d - 1, 0),
            )
            for _ in range(r.randint(0, 3))
        ]
        return "[" + ", ".join(items) + "]"

    def regex(self) -> str:
        return _quote(
            self.rng.choice(
                [
                    "^a",
                    "b$",
                    "[a-z]+",
                    "\\\\d+",
                    "(a|b)*",
                    "[",
                    "a{2,3}",
                    ".",
                    "^$",
                    "(?i)abc",
                    "\\\\p{L}",
                    "x*?",
                ]
            ),
            self.rng,
        )

    def quantity(self) -> str:
        return json.dumps(
            self.rng.choice(
                [
                    "1",
                    "1Gi",
                    "500m",
                    "1.5",
                    "1e3",
                    "1E3",
                    "0",
                    "-1",
                    "1Ki",
                    "9223372036854775807",
                    "1e20",
                    "1Pi",
                    "0.1m",
                    "x",
                    "1.0001",
                    "100Mi",
                    "2Ti",
                    "1n",
                    "1u",
                    "1Ei",
                ]
            )
        )

    def semver(self) -> str:
        return json.dumps(
            self.rng.choice(
                [
                    "1.2.3",
                    "0.0.0",
                    "1.2.3-alpha",
                    "1.2.3+build",
                    "1.2",
                    "v1.2.3",
                    "01.2.3",
                    "1.2.3-alpha.1",
                    "1.2.3-0",
                    "x",
                ]
            )
        )

    def ip(self) -> str:
        return json.dumps(
            self.rng.choice(
                [
                    "1.2.3.4",
                    "127.0.0.1",
                    "0.0.0.0",
                    "::1",
                    "::",
                    "fe80::1",
                    "::ffff:1.2.3.4",
                    "2001:db8::1",
                    "01.2.3.4",
                    "256.1.1.1",
                    "224.0.0.1",
                    "ff02::1",
                    "169.254.1.1",
                    "x",
                    "1.2.3.4%eth0",
                ]
            )
        )

    def cidr(self) -> str:
        return json.dumps(
            self.rng.choice(
                [
                    "10.0.0.0/8",
                    "192.168.0.0/24",
                    "192.168.0.1/32",
                    "192.168.0.1/24",
                    "::/0",
                    "0.0.0.0/0",
                    "2001:db8::/32",
                    "2001:db8::1/128",
                    "10.0.0.0/33",
                    "::ffff:1.2.3.0/120",
                    "1.2.3.4",
                    "fe80::/10",
                    "10.1.0.0/16",
                    "x/8",
                ]
            )
        )

    def url(self) -> str:
        return json.dumps(
            self.rng.choice(
                [
                    "https://example.com:8080/p?q=1#f",
                    "http://x",
                    "/rel",
                    "https://[::1]:80/a%20b",
                    "ftp://u:p@h/",
                    "x",
                    "https://é.com/ü",
                    "http://host:port/",
                ]
            )
        )

    def case(self) -> dict[str, Any]:
        self.obj = {k: self.json_value(4) for k in self.rng.sample(IDENTS, self.rng.randint(1, 5))}
        kind = self.rng.choice(
            ["bool"] * 4 + ["int", "string", "double", "list", "uint", "map", "bytes"]
        )
        return {"expr": self.expr(kind, self.rng.randint(1, 4)), "vars": {"object": self.obj}}

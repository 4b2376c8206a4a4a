"""Expressions of the constructs the cost bound (``bound.py``) follows beyond cel-python: cel-go's
two-variable comprehensions, optionals (``.?``, ``[?]``, ``optional.*``, ``orValue``, ``or``,
``hasValue``, ``value``, ``optMap``, optional list and map entries), the lists extension's
``sortBy``, Kubernetes' format library, the strings extension's ``format()`` and
``lists.range`` of a computed count, nested in comprehensions and over generated objects up to
hostile sizes. A seeded ``random.Random`` builds them (cheap in bulk, as ``celgen.py``).
"""

from __future__ import annotations

import random
from typing import Any

FORMATS = (
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
)


class CostGenerator:
    """``case()``: one expression and its variables."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def pick(self, *options: str) -> str:
        return self.rng.choice(options)

    def string(self, depth: int) -> str:
        leaves = ("object.s", "object.t", "object.ls[0]", "'ab-c'", "object.m.?k.orValue('x')")
        if depth <= 0:
            return self.pick(*leaves)
        below = self.string(depth - 1)
        return self.pick(
            *leaves,
            f"{below}.lowerAscii()",
            f"'%s-%d'.format([{below}, {self.number(depth - 1)}])",
            f"optional.of({below}).value()",
            f"object.m[?'{self.pick('k', 'j', 'z')}'].orValue({below})",
            f"{self.strings(depth - 1)}.join(',')",
        )

    def number(self, depth: int) -> str:
        leaves = ("object.n", "1", "size(object.l)", "object.l[?0].orValue(7)")
        if depth <= 0:
            return self.pick(*leaves)
        return self.pick(
            *leaves,
            f"size({self.strings(depth - 1)})",
            f"{self.string(depth - 1)}.size()",
            f"{self.ints(depth - 1)}.size()",
        )

    def ints(self, depth: int) -> str:
        leaves = ("object.l", "[1, 2, 3]", "lists.range(size(object.ls))")
        if depth <= 0:
            return self.pick(*leaves)
        below, test = self.ints(depth - 1), self.test(depth - 1)
        return self.pick(
            *leaves,
            f"{below}.transformList(i, v, v + i)",
            f"{below}.transformList(i, v, {test}, v)",
            f"{below}.sortBy(x, -x)",
            f"lists.range({self.number(depth - 1)})",
            f"{below}.filter(x, {test})",
        )

    def strings(self, depth: int) -> str:
        leaves = ("object.ls", "['a', 'b']", "object.s.split('o')")
        if depth <= 0:
            return self.pick(*leaves)
        below, text = self.strings(depth - 1), self.string(depth - 1)
        return self.pick(
            *leaves,
            f"{below}.sortBy(x, x)",
            f"{below}.transformList(i, v, {text})",
            f"{below}.map(x, {text})",
            f"[?optional.of({text}), ?optional.none(), {text}]",
            f"{self.map(depth - 1)}.transformMap(k, v, v).map(k, k)",
            f"format.{self.pick(*FORMATS)}().validate({text}).orValue([])",
            f"format.named('{self.pick(*FORMATS)}').value().validate({text}).orValue([])",
        )

    def map(self, depth: int) -> str:
        leaves = ("object.m", "{'a': 'b'}")
        if depth <= 0:
            return self.pick(*leaves)
        below, text = self.map(depth - 1), self.string(depth - 1)
        return self.pick(
            *leaves,
            f"{below}.transformMap(k, v, {text})",
            f"{below}.transformMapEntry(k, v, {{k: {text}}})",
            f"{{?'a': object.m.?k, 'b': {text}}}",
        )

    def test(self, depth: int) -> str:
        leaves = ("object.n > 2", "has(object.m.k)", "object.m.?k.hasValue()", "true")
        if depth <= 0:
            return self.pick(*leaves)
        below, text = self.test(depth - 1), self.string(depth - 1)
        ints, strings, maps = self.ints(depth - 1), self.strings(depth - 1), self.map(depth - 1)
        return self.pick(
            f"{ints}.all(i, v, v >= i || {below})",
            f"{strings}.exists(i, v, v.contains({text}))",
            f"{maps}.all(k, v, v != {text})",
            f"{ints}.existsOne(i, v, v == {self.number(depth - 1)})",
            f"{strings}.exists_one(i, v, {below})",
            f"object.m.?k.optMap(x, x + {text}).orValue('') == {text}",
            f"format.{self.pick(*FORMATS)}().validate({text}).hasValue()",
            f"{text}.contains({self.string(depth - 1)})",
            f"({below} && {self.test(depth - 1)})",
            f"{ints}.sortBy(x, x) == {ints}",
        )

    def variables(self) -> dict[str, Any]:
        rng = self.rng
        items = rng.choice((0, 1, 3, 20, 120))
        word = lambda: "".join(rng.choice("ab-o.c") for _ in range(rng.randint(0, 8)))  # noqa: E731
        return {
            "object": {
                "l": [rng.randint(-5, 5) for _ in range(items)],
                "ls": [word() for _ in range(min(items, 40))],
                "s": rng.choice(("o" * 10_000, "abc" * 300, "a-b", "", "x" * 63)),
                "t": rng.choice(("", "o", "ab", "x" * 10)),
                "m": {word(): word() for _ in range(rng.randint(0, 5))}
                | rng.choice(({}, {"k": "kv"})),
                "n": rng.randint(0, 5),
            }
        }

    def case(self) -> dict[str, Any]:
        return {"expr": self.test(self.rng.randint(1, 3)), "vars": self.variables()}

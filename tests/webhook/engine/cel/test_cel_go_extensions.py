# ruff: noqa: E501 - cel-go's own test expressions, one per line
"""cel-go's two-variable comprehensions and lists extension, which Kubernetes enables, on the
default backend; cel-python gives the same value or refuses the expression when compiling,
never an evaluation error.

Sources: google/cel-go 14f6746a, ext/comprehensions_test.go and ext/lists_test.go, the cases
that expect true (``transformMap``, ``transformMapEntry`` and two-variable ``exists_one``, which
fedgate rewrites for cel-expr, are in ``kubernetes_tables``). Left out, lists: literals mixing
types (Kubernetes refuses them) and cel-go's test message type ``ExampleType``.
"""

from __future__ import annotations

import pytest

from webhook.engine.cel import CelCompileError, CelEvalError
from webhook.engine.cel.engines import make_backend

COMPREHENSIONS = [
    "[1, 2, 3, 4].all(i, v, i < 5 && v > 0)",
    "[1, 2, 3, 4].all(i, v, i < v)",
    "[1, 2, 3, 4].all(i, v, i > v) == false",
    "cel.bind(listA, [1, 2, 3, 4], cel.bind(listB, [1, 2, 3, 4, 5], listA.all(i, v, listB[?i].hasValue() && listB[i] == v) ))",
    "cel.bind(listA, [1, 2, 3, 4, 5, 6], cel.bind(listB, [1, 2, 3, 4, 5], listA.all(i, v, listB[?i].hasValue() && listB[i] == v) )) == false",
    "cel.bind(l, ['hello', 'world', 'hello!', 'worlds'], l.exists(i, v, v.startsWith('hello') && l[?(i+1)].optMap(next, next.endsWith('world')).orValue(false) ) )",
    "cel.bind(l, ['hello', 'world', 'hello!', 'worlds'], l.existsOne(i, v, v.startsWith('hello') && l[?(i+1)].optMap(next, next.endsWith('world')).orValue(false) ) )",
    '[\'Hello\', \'world\'].transformList(i, v, "[%d]%s".format([i, v.lowerAscii()])) == ["[0]hello", "[1]world"]',
    "['hello', 'world'].transformList(i, v, v.startsWith('greeting'), \"[%d]%s\".format([i, v])) == []",
    "[1, 2, 3].transformList(indexVar, valueVar, (indexVar * valueVar) + valueVar) == [1, 4, 9]",
    "[1, 2, 3].transformList(indexVar, valueVar, indexVar % 2 == 0, (indexVar * valueVar) + valueVar) == [1, 9]",
    "{'hello': 'world', 'hello!': 'world'}.all(k, v, k.startsWith('hello') && v == 'world')",
    "{'hello': 'world', 'hello!': 'worlds'}.all(k, v, k.startsWith('hello') && v.endsWith('world')) == false",
    "{'hello': 'world', 'hello!': 'worlds'}.exists(k, v, k.startsWith('hello') && v.endsWith('world'))",
    "{'hello': 'world', 'hello!': 'worlds'}.existsOne(k, v, k.startsWith('hello') && v.endsWith('world'))",
    "{'Hello': 'world'}.transformList(k, v, \"%s=%s\".format([k.lowerAscii(), v])) == [\"hello=world\"]",
    "dyn({'Hello': 'world'}).transformList(k, v, \"%s=%s\".format([k.lowerAscii(), v])) == [\"hello=world\"]",
    "{'hello': 'world'}.transformList(k, v, k.startsWith('greeting'), \"%s=%s\".format([k, v])) == []",
    "{'greeting': 'hello', 'farewell': 'goodbye'} .transformList(k, _, k).sort() == ['farewell', 'greeting']",
    "{'greeting': 'hello', 'farewell': 'goodbye'} .transformList(_, v, v).sort() == ['goodbye', 'hello']",
]
LISTS = [
    "lists.range(4) == [0,1,2,3]",
    "lists.range(0) == []",
    "[5,1,2,3].reverse() == [3,2,1,5]",
    "[].reverse() == []",
    "[1].reverse() == [1]",
    "['are', 'you', 'as', 'bored', 'as', 'I', 'am'].reverse() == ['am', 'I', 'as', 'bored', 'as', 'you', 'are']",
    "[false, true, true].reverse().reverse() == [false, true, true]",
    "[1,2,3,4].slice(0, 4) == [1,2,3,4]",
    "[1,2,3,4].slice(0, 0) == []",
    "[1,2,3,4].slice(1, 1) == []",
    "[1,2,3,4].slice(4, 4) == []",
    "[1,2,3,4].slice(1, 3) == [2, 3]",
    "dyn([]).flatten() == []",
    "dyn([1,2,3,4]).flatten() == [1,2,3,4]",
    "[].sort() == []",
    "[1].sort() == [1]",
    "[4, 3, 2, 1].sort() == [1, 2, 3, 4]",
    '["d", "a", "b", "c"].sort() == ["a", "b", "c", "d"]',
    "[].sortBy(e, e) == []",
    '["a"].sortBy(e, e) == ["a"]',
    "[-3, 1, -5, -2, 4].sortBy(e, -(e * e)) == [-5, 4, -3, -2, 1]",
    "[-3, 1, -5, -2, 4].map(e, e * 2).sortBy(e, -(e * e)) == [-10, 8, -6, -4, 2]",
    "lists.range(3).sortBy(e, -e) == [2, 1, 0]",
    '["a", "c", "b", "first"].sortBy(e, e == "first" ? "" : e) == ["first", "a", "b", "c"]',
    "[].distinct() == []",
    "[1].distinct() == [1]",
    "[-2, 5, -2, 1, 1, 5, -2, 1].distinct() == [-2, 5, 1]",
    "['c', 'a', 'a', 'b', 'a', 'b', 'c', 'c'].distinct() == ['c', 'a', 'b']",
    "[[1], [1], [2]].distinct() == [[1], [2]]",
]


@pytest.mark.parametrize("expression", COMPREHENSIONS + LISTS)
def test_true_on_cel_expr_and_the_same_or_refused_on_cel_python(expression: str) -> None:
    engine = make_backend("cel-expr")
    assert engine.evaluate(engine.compile(expression), engine.activation({})) is True
    portable = make_backend("cel-python")
    try:
        program = portable.compile(expression)
    except CelCompileError as exc:
        assert "cel-python" in str(exc)
        return
    assert portable.evaluate(program, portable.activation({})) is True


def test_transform_map_entry_refuses_a_repeated_key() -> None:
    """cel-go's ``cel.@mapInsert``: ``insert failed: key ... already exists``."""
    engine = make_backend("cel-expr")
    program = engine.compile("{'a': 'x', 'b': 'x'}.transformMapEntry(k, v, {v: k})")
    with pytest.raises(CelEvalError, match="insert failed: key x already exists"):
        engine.evaluate(program, engine.activation({}))


def test_the_rewrite_leaves_literals_and_comments_alone() -> None:
    engine = make_backend("cel-expr")
    expression = "// x.transformMap(\n['.validate(', \"format.named('x')\"].transformMap(i, v, v)"
    value = engine.evaluate(engine.compile(expression), engine.activation({}))
    assert value == {0: ".validate(", 1: "format.named('x')"}


def test_internal_names_cannot_be_written() -> None:
    with pytest.raises(CelCompileError, match="undeclared reference to 'fedgateMapOfPairs'"):
        make_backend("cel-expr").compile("[[0, 1]].fedgateMapOfPairs()")

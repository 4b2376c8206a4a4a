# ruff: noqa: RUF001 - cel-go's own test strings, Greek letters and all, one per line
"""cel-go's strings extension on both backends: cel-expr runs its own (cel-cpp), cel-python
fedgate's (``library.STRING_FUNCTIONS``).

Source: google/cel-go ext/strings_test.go at 14f6746a, the ``stringTests`` cases of charAt,
indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim and join that
expect true (not format, quote or the strings.* functions; not reverse, which came with version 3:
Kubernetes 1.34 runs version 2). Left out: four cases that
cel-go changed in that very commit (#1335: an offset past the end, ``'tacocat'.indexOf('a', 30)``,
now clamps instead of failing); cel-cpp, and both backends here, still say "index out of range".
"""

from __future__ import annotations

import pytest

from webhook.engine.cel import Backend, CelCompileError
from webhook.engine.cel.engines import BACKENDS, make_backend

CASES = [
    "'tacocat'.charAt(3) == 'o'",
    "'tacocat'.charAt(7) == ''",
    "'©αT'.charAt(0) == '©' && '©αT'.charAt(1) == 'α' && '©αT'.charAt(2) == 'T'",
    "'tacocat'.indexOf('') == 0",
    "'tacocat'.indexOf('ac') == 1",
    "'tacocat'.indexOf('none') == -1",
    "'tacocat'.indexOf('', 3) == 3",
    "'tacocat'.indexOf('a', 3) == 5",
    "'tacocat'.indexOf('at', 3) == 5",
    "'ta©o©αT'.indexOf('©') == 2",
    "'ta©o©αT'.indexOf('©', 3) == 4",
    "'ta©o©αT'.indexOf('©αT', 3) == 4",
    "'ta©o©αT'.indexOf('©α', 5) == -1",
    "'ijk'.indexOf('k') == 2",
    "'hello wello'.indexOf('hello wello') == 0",
    "'hello wello'.indexOf('ello', 6) == 7",
    "'hello wello'.indexOf('elbo room!!') == -1",
    "'hello wello'.indexOf('elbo room!!!') == -1",
    "''.lastIndexOf('@@') == -1",
    "'tacocat'.lastIndexOf('') == 7",
    "'tacocat'.lastIndexOf('at') == 5",
    "'tacocat'.lastIndexOf('none') == -1",
    "'tacocat'.lastIndexOf('', 3) == 3",
    "'tacocat'.lastIndexOf('a', 3) == 1",
    "'ta©o©αT'.lastIndexOf('©') == 4",
    "'ta©o©αT'.lastIndexOf('©', 3) == 2",
    "'ta©o©αT'.lastIndexOf('©α', 4) == 4",
    "'hello wello'.lastIndexOf('ello', 6) == 1",
    "'hello wello'.lastIndexOf('low') == -1",
    "'hello wello'.lastIndexOf('elbo room!!') == -1",
    "'hello wello'.lastIndexOf('elbo room!!!') == -1",
    "'hello wello'.lastIndexOf('hello wello') == 0",
    "'bananananana'.lastIndexOf('nana', 7) == 6",
    "'TacoCat'.lowerAscii() == 'tacocat'",
    "'TacoCÆt'.lowerAscii() == 'tacocÆt'",
    "'TacoCÆt Xii'.lowerAscii() == 'tacocÆt xii'",
    '"12 days 12 hours".replace("{0}", "2") == "12 days 12 hours"',
    '"{0} days {0} hours".replace("{0}", "2") == "2 days 2 hours"',
    '"{0} days {0} hours".replace("{0}", "2", 1).replace("{0}", "23") == "2 days 23 hours"',
    '"1 ©αT taco".replace("αT", "o©α") == "1 ©o©α taco"',
    '"hello hello".replace("", "_") == "_h_e_l_l_o_ _h_e_l_l_o_"',
    '"hello hello".replace("h", "") == "ello ello"',
    '"hello world".split(" ") == ["hello", "world"]',
    '"hello world events!".split(" ", 0) == []',
    '"hello world events!".split(" ", 1) == ["hello world events!"]',
    '"o©o©o©o".split("©", -1) == ["o", "o", "o", "o"]',
    '"tacocat".substring(4) == "cat"',
    '"tacocat".substring(7) == ""',
    '"tacocat".substring(0, 4) == "taco"',
    '"tacocat".substring(4, 4) == ""',
    "'ta©o©αT'.substring(2, 6) == \"©o©α\"",
    "'ta©o©αT'.substring(7, 7) == \"\"",
    '" \\f\\n\\r\\t\\vtext  ".trim() == "text"',
    '"\\u0085\\u00a0\\u1680text".trim() == "text"',
    '"text\\u2000\\u2001\\u2002\\u2003\\u2004\\u2004\\u2006\\u2007\\u2008\\u2009".trim() == "text"',
    '"\\u200atext\\u2028\\u2029\\u202F\\u205F\\u3000".trim() == "text"',
    "'tacoCat'.upperAscii() == 'TACOCAT'",
    "'tacoCαt'.upperAscii() == 'TACOCαT'",
    "['x', 'y'].join() == 'xy'",
    "['x', 'y'].join('-') == 'x-y'",
    "[].join() == ''",
    "[].join('-') == ''",
    "'tacocat'.indexOf('', 7) == 7",
    "'tacocat'.lastIndexOf('', 7) == 7",
]


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    return make_backend(request.param)


@pytest.mark.parametrize("expression", CASES)
def test_true(backend: Backend, expression: str) -> None:
    assert backend.evaluate(backend.compile(expression), backend.activation({})) is True


@pytest.mark.parametrize(
    "expression",
    ["'tacocat'.charAt(30) == ''", "'tacocat'.indexOf('', -1) == 0", "'tacocat'.substring(40)"],
)
def test_errors(backend: Backend, expression: str) -> None:
    from webhook.engine.cel import CelEvalError  # noqa: PLC0415

    with pytest.raises(CelEvalError):
        backend.evaluate(backend.compile(expression), backend.activation({}))


def test_reverse_of_a_string_is_not_kubernetes_1_34_s(backend: Backend) -> None:
    """The strings extension's version 2 has no reverse(): Kubernetes refuses it written on a
    string and fails it behind dyn(); the lists extension's reverse() of a list stays."""
    from webhook.engine.cel import CelEvalError  # noqa: PLC0415

    if backend.name == "cel-expr":  # cel-python has no type checker: it fails when it runs
        with pytest.raises(CelCompileError, match="reverse"):
            backend.compile("'ab'.reverse()")
    with pytest.raises(CelEvalError, match=r"(?i)no (such|matching) overload"):
        backend.evaluate(backend.compile("dyn('ab').reverse()"), backend.activation({}))
    assert backend.evaluate(backend.compile("[1, 2].reverse()"), backend.activation({})) == [2, 1]

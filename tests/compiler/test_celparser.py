"""The CEL parser kept between runs (``compiler/compile/celparser.py``) is the parser cel-python
builds, which the engine builds in memory (``webhook/engine/cel/grammar.py``): a parser
loaded from the cache parses every expression to the same tree, positions included, and fails
where it fails; a cache for another grammar, a damaged one or one holding anything but lark's
data is never used (and nothing in it is called)."""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import Any

import lark
import pytest
from celpy.celparser import CELParser
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.compile import celparser
from tests.conftest import ROOT
from webhook.engine.cel import grammar

KEY = b"k" * 64


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> lark.Lark:
    """A parser saved by one build and loaded back, as a second run of fedgate gets it."""
    file = tmp_path_factory.mktemp("grammar") / celparser.CACHE_NAME
    celparser.save(grammar.build(), file, KEY)
    parser = celparser.load(file, KEY)
    assert parser is not None
    return parser


def _shape(node: Any) -> Any:
    """A tree with everything a reader of it sees: rule names, tokens with their types, and
    the positions (the literal check slices the expression by them)."""
    if isinstance(node, lark.Token):
        return ("token", node.type, str(node), node.start_pos, node.end_pos, node.line)
    if isinstance(node, lark.Tree):
        meta = node.meta
        where = (meta.start_pos, meta.end_pos, meta.line) if not meta.empty else None
        return (str(node.data), where, [_shape(child) for child in node.children])
    return node


def _outcome(parse: Any, text: str) -> Any:
    try:
        return _shape(parse(text))
    except lark.exceptions.LarkError as exc:  # CELParser wraps these; the readers catch all
        return ("error", type(exc).__name__)
    except Exception as exc:
        cause = exc.__cause__ or exc.__context__
        return ("error", type(cause or exc).__name__)


ATOMS = st.sampled_from(
    [
        "1", "-2", "0x1F", "3u", "1.5", "1e3", "true", "false", "null", "'a'", '"b"',
        "'''x'''", "r'\\d'", "b'x'", "'\\n'", "object", "object.spec", "tenant.name", "c",
        "dyn", "has(object.x)", "[]", "{}", "x", "truex", "falsey", "nullx",
    ]
)  # fmt: skip
BINARY = st.sampled_from(
    ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", " in "]
)


def _expressions() -> st.SearchStrategy[str]:
    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, BINARY, inner).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
            st.tuples(inner, inner, inner).map(lambda t: f"{t[0]} ? {t[1]} : {t[2]}"),
            inner.map(lambda e: f"!{e}"),
            inner.map(lambda e: f"({e})"),
            st.lists(inner, max_size=3).map(lambda es: f"[{', '.join(es)}]"),
            st.lists(st.tuples(inner, inner), max_size=2).map(
                lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}"
            ),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
            inner.map(lambda e: f"{e}.field"),
            st.tuples(inner, st.sampled_from(["all", "exists", "map", "filter"]), inner).map(
                lambda t: f"{t[0]}.{t[1]}(c, {t[2]})"
            ),
            st.lists(inner, max_size=2).map(lambda es: f"size({', '.join(es)})"),
        )

    return st.recursive(ATOMS, grow, max_leaves=8)


EXPRESSIONS = st.one_of(_expressions(), st.text(max_size=30), _expressions().map(lambda e: e[:-1]))


@settings(max_examples=400, deadline=None)
@given(text=EXPRESSIONS)
def test_a_loaded_parser_parses_as_cel_python_does(loaded: lark.Lark, text: str) -> None:
    assert _outcome(loaded.parse, text) == _outcome(CELParser().parse, text)


def test_every_rule_expression_of_the_bundles_parses_alike(loaded: lark.Lark) -> None:
    import yaml  # noqa: PLC0415

    texts = []
    for rule in sorted((ROOT / "policies" / "rules").glob("*/rule.yaml")):
        document = yaml.safe_load(rule.read_text())
        for validation in document.get("validations") or []:
            texts += [v for k, v in validation.items() if k in ("expression", "messageExpression")]
    assert len(texts) >= 5
    for text in texts:
        assert _outcome(loaded.parse, text) == _outcome(CELParser().parse, text), text


def _saved(tmp_path: Path) -> Path:
    file = tmp_path / celparser.CACHE_NAME
    celparser.save(grammar.build(), file, KEY)
    return file


def test_a_cache_of_another_grammar_or_lark_is_not_used(tmp_path: Path) -> None:
    assert celparser.load(_saved(tmp_path), b"o" * 64) is None


def test_a_damaged_cache_is_not_used(tmp_path: Path) -> None:
    file = _saved(tmp_path)
    data = bytearray(file.read_bytes())
    data[len(data) // 2] ^= 0xFF
    file.write_bytes(bytes(data))
    assert celparser.load(file, KEY) is None
    file.write_bytes(bytes(data[: len(data) // 2]))
    assert celparser.load(file, KEY) is None


class _Trap:
    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, ("touch pwned",))


def test_a_cache_can_call_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    data = pickle.dumps({"data": _Trap(), "memo": {}})
    file = tmp_path / celparser.CACHE_NAME  # with a valid header: only the unpickler stands guard
    file.write_bytes(KEY + b" " + hashlib.sha256(data).hexdigest().encode() + b"\n" + data)
    assert celparser.load(file, KEY) is None
    assert not (tmp_path / "pwned").exists()


def test_the_first_run_saves_the_next_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grammar, "_parser", None)
    celparser.keep_in(tmp_path)
    try:
        first = grammar.parse("object.spec.replicas <= 10")
        assert (tmp_path / celparser.CACHE_NAME).is_file()

        def no_build(*_: object) -> lark.Lark:
            raise AssertionError("built again though the cache holds it")

        monkeypatch.setattr(grammar, "build", no_build)
        monkeypatch.setattr(grammar, "_parser", None)
        assert _shape(grammar.parse("object.spec.replicas <= 10")) == _shape(first)
    finally:
        celparser.keep_in(None)
        monkeypatch.undo()


def test_a_lark_that_cannot_save_leaves_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise NotImplementedError("this lark saves otherwise")

    built = grammar.build()
    monkeypatch.setattr(built, "save", refuse)
    celparser.save(built, tmp_path / celparser.CACHE_NAME, KEY)
    assert not (tmp_path / celparser.CACHE_NAME).exists()

"""The engine's shared CEL parser (``grammar.py``): built in memory, or made by the factory a
shell gives (``use_factory``) from the grammar's text, once per process. Keeping it between
runs is the CLI's (``tests/compiler/test_celparser.py``)."""

from __future__ import annotations

import lark
import pytest

from webhook.engine.cel import grammar


def test_the_shells_factory_makes_the_shared_parser_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grammar, "_parser", None)
    given: list[str] = []

    def factory(text: str) -> lark.Lark:
        given.append(text)
        return grammar.build(text)

    grammar.use_factory(factory)
    try:
        first = grammar.parse("object.spec.replicas <= 10")
        grammar.parse("true")
    finally:
        grammar.use_factory(None)
    assert given == [grammar.grammar_text()]
    assert first.data == "expr"


def test_without_a_factory_the_parser_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grammar, "_parser", None)
    built: list[str | None] = []
    build = grammar.build

    def counting(text: str | None = None) -> lark.Lark:
        built.append(text)
        return build(text)

    monkeypatch.setattr(grammar, "build", counting)
    grammar.parse("1 + 2")
    assert built == [grammar.grammar_text()]


def test_the_fingerprint_names_what_the_parser_is_built_from() -> None:
    text = grammar.grammar_text()
    assert grammar.fingerprint(text) == grammar.fingerprint(text)
    assert grammar.fingerprint(text) != grammar.fingerprint(text + "\n")
    assert len(grammar.fingerprint(text)) == 64

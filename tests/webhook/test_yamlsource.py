from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webhook.base.yamlsource import YamlSyntaxError, parse_documents, parse_single, render_path

TEXT = """\
a:
  b: [1, 2]
  c:
    - name: x
      value: "yes"
"""


def test_lines_of_keys_and_items() -> None:
    document = parse_single(TEXT, "f.yaml")
    assert document.data == {"a": {"b": [1, 2], "c": [{"name": "x", "value": "yes"}]}}
    assert document.line(("a", "b")) == 2
    assert document.line(("a", "c", 0, "value")) == 5
    assert document.line(("a", "c", 0, "missing", "deeper")) == 4  # nearest ancestor


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("a: 1\na: 2\n", "f.yaml:2: a: duplicate key", id="duplicate-key"),
        pytest.param("a: [1\n", "f.yaml:2:1: not valid YAML", id="unclosed-flow"),
        pytest.param("x: &a {k: 1}\ny:\n  <<: *a\n", "f.yaml:3: y: merge keys", id="merge-key"),
        pytest.param("? [1]\n: 2\n", "f.yaml:1: mapping keys must be strings", id="list-key"),
        pytest.param("", "expected one YAML document, found no document", id="empty"),
        pytest.param("a: 1\n---\nb: 2\n", "found 2 documents", id="two-documents"),
    ],
)
def test_errors_are_located(text: str, message: str) -> None:
    with pytest.raises(YamlSyntaxError) as caught:
        parse_single(text, "f.yaml")
    assert message in caught.value.finding.render()


def test_timestamps_stay_text_and_scalars_keep_yaml_types() -> None:
    document = parse_single("d: 2024-01-01\nn: ~\nb: true\ni: 3\nf: 1.5\ns: '3'\n", "f")
    assert document.data == {"d": "2024-01-01", "n": None, "b": True, "i": 3, "f": 1.5, "s": "3"}


def test_alias_expansion_is_bounded() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join(f'*a{i - 1}' for _ in range(10))}]" for i in range(1, 7)]
    with pytest.raises(YamlSyntaxError, match="document too large"):
        parse_single("\n".join(lines) + "\n", "bomb.yaml")


def test_render_path_quotes_keys_with_dots() -> None:
    path = ("spec", "overrides", 0, "annotations", "example.com/class")
    assert render_path(path) == 'spec.overrides[0].annotations["example.com/class"]'


@given(st.text(max_size=200))
def test_any_text_parses_or_fails_cleanly(text: str) -> None:
    try:
        parse_documents(text, "fuzz.yaml")
    except YamlSyntaxError as exc:
        assert exc.finding.file == "fuzz.yaml"
        assert exc.finding.line >= 1

"""The format library's validations beyond format_test.go's table: lengths in bytes, prefixes,
label keys with a prefix, the date rules of Go's time.Parse (kubernetes_tables has the rest)."""

from __future__ import annotations

import pytest

from webhook.engine.cel import CelEvalError, formatlib
from webhook.engine.cel.engines import make_backend

CASES = [
    ("dns1123Label", "a" * 63, []),
    ("dns1123Label", "a" * 64, ["must be no more than 63 bytes"]),
    ("dns1123Label", "é" * 32, ["must be no more than 63 bytes", "REGEX"]),
    ("dns1123Label", "a.b", ["must not contain dots"]),
    ("dns1123LabelPrefix", "ab-", []),  # 'ab-' is checked as 'aa'
    ("qualifiedName", "example.com/MyName", []),
    ("qualifiedName", "/name", ["prefix part must be non-empty"]),
    ("qualifiedName", "Example.com/x", ["prefix part REGEX"]),
    ("qualifiedName", "a/b/c", ["a valid label key REGEX"]),
    ("qualifiedName", "", ["name part must be non-empty", "name part REGEX"]),
    ("labelValue", "", []),
    ("uuid", "123E4567E89B12D3A456426614174000", []),
    ("uuid", "123e4567-e89b-12d3-a456-42661417400", ["does not match the UUID format"]),
    ("byte", "", ["invalid base64"]),
    ("date", "2024-02-29", []),
    ("date", "2023-02-29", ["invalid date"]),
    ("date", "0000-02-29", []),
    ("date", "2024-2-01", ["invalid date"]),
    ("datetime", "2021-01-01t10:00:00.5+01:00", []),
    ("datetime", "2021-01-01T24:00:00Z", ["invalid datetime"]),
    ("datetime", "2021-01-01T10:00:00", ["invalid datetime"]),
    ("uri", "/absolute", []),
    ("uri", "", ['parse "": empty url']),
]


@pytest.mark.parametrize(("name", "value", "expected"), CASES)
def test_validation(name: str, value: str, expected: list[str]) -> None:
    found = formatlib.FORMATS[name](value)
    assert len(found) == len(expected)
    for message, want in zip(found, expected, strict=True):
        prefix = want.partition("REGEX")[0]
        assert message.startswith(prefix) and ("regex used for validation" in message) == (
            want.endswith("REGEX")
        ), message


def test_a_lone_dash_prefix_is_an_evaluation_error_as_go_panics() -> None:
    with pytest.raises(formatlib.FormatError):
        formatlib.FORMATS["dns1123LabelPrefix"]("-")
    engine = make_backend("cel-expr")
    program = engine.compile("format.dns1123LabelPrefix().validate('-').hasValue()")
    with pytest.raises(CelEvalError, match="slice bounds out of range"):
        engine.evaluate(program, engine.activation({}))

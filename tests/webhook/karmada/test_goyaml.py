"""YAML read as go-yaml v2 and sigs.k8s.io/yaml read it: the fieldOverrider cases of
``cases/fieldoverrider.yaml`` (what Karmada's libraries wrote, row by row) through the overrider,
and go-yaml's scalar resolution on its own."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
import yaml

from webhook.karmada.goyaml import go_parse_int, resolve_plain
from webhook.karmada.overriders import OverrideError, field

CASES = Path(__file__).resolve().parent / "cases" / "fieldoverrider.yaml"


@functools.cache
def field_cases() -> list[Any]:
    rows = yaml.safe_load(CASES.read_text())["cases"]
    return [pytest.param(row, id=row["name"]) for row in rows]


def configmap(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "probe", "namespace": "default"},
        "data": {"doc": row["doc"]},
    }


def overrider(row: dict[str, Any]) -> dict[str, Any]:
    return {"fieldPath": "/data/doc", row["mode"]: row["ops"]}


@pytest.mark.parametrize("row", field_cases())
def test_field_overrider_writes_what_karmada_writes(row: dict[str, Any]) -> None:
    if "error" in row:
        with pytest.raises(OverrideError):
            field(configmap(row), overrider(row))
        return
    assert field(configmap(row), overrider(row))["data"]["doc"] == row["want"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        pytest.param("0o17", 15, id="0o"),
        pytest.param("-0O17", -15, id="signed-0O"),
        pytest.param("017", 15, id="leading-zero-octal"),
        pytest.param("08", None, id="not-octal"),
        pytest.param("0x1F", 31, id="hex"),
        pytest.param("-0b101", -5, id="binary"),
        pytest.param("9223372036854775807", 2**63 - 1, id="int64-max"),
        pytest.param("18446744073709551615", 2**64 - 1, id="uint64-max"),
        pytest.param("+18446744073709551615", None, id="parseuint-takes-no-sign"),
        pytest.param("-9223372036854775809", None, id="below-int64"),
        pytest.param("0x", None, id="prefix-alone"),
    ],
)
def test_go_parse_int(text: str, value: int | None) -> None:
    assert go_parse_int(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        pytest.param("y", True, id="y"),
        pytest.param("Off", False, id="off"),
        pytest.param("~", None, id="tilde"),
        pytest.param("1_000", 1000, id="underscores"),
        pytest.param("1:20", "1:20", id="no-base-60"),
        pytest.param("<<", "<<", id="merge-is-text-as-a-value"),
        pytest.param(".5", 0.5, id="dot-float"),
        pytest.param("1e400", "1e400", id="overflow-is-text"),
        pytest.param("2001-02-03", "2001-02-03", id="timestamp-text"),
        pytest.param("t", "t", id="t-is-text"),
    ],
)
def test_resolve_plain(text: str, value: Any) -> None:
    resolved = resolve_plain(text)
    assert resolved == value and type(resolved) is type(value)

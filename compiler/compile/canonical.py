"""The one canonical YAML form of rendered manifests: fixed indentation, quoting and newline.

A small emitter for the values manifests are made of (mappings, lists, strings, integers,
booleans, null), so the bytes depend on nothing but the data: no library version, no locale, no
machine. Key order is the order the render steps built. A string is written plain only when
every YAML 1.1 and 1.2 reader takes it back as the same string; otherwise single-quoted
when that needs no escape, else double-quoted (JSON escapes are valid YAML); text of
several lines ending in one newline is a ``|`` block.
Tested by round trip through PyYAML.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import yaml

from webhook.karmada.goyaml import resolve_plain

_SAFE_PLAIN = re.compile(r"^[A-Za-z0-9_/][A-Za-z0-9_./@+:=~-]*$")
_YAML12_SPECIAL = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_NOT_YAML_PRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")
"""Characters YAML may not carry raw, or reads as line breaks (JSON escapes C0 controls)."""
_resolver = yaml.resolver.Resolver()


def _resolves_to_str(value: str) -> bool:
    """Whether the YAML 1.1 readers (PyYAML, and go-yaml v2, Argo CD's) take plain ``value``
    as a string: go-yaml v2 also reads ``y``, ``Y``, ``n`` and ``N`` as booleans."""
    tag: str = _resolver.resolve(yaml.ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]
    return tag == "tag:yaml.org,2002:str" and isinstance(resolve_plain(value), str)


@lru_cache(maxsize=8192)
def scalar_text(value: str) -> str:
    """``value`` as a YAML scalar: plain when unambiguous, quoted otherwise."""
    if (
        _SAFE_PLAIN.fullmatch(value)
        and not value.endswith(":")
        and ": " not in value
        and not _YAML12_SPECIAL.fullmatch(value)
        and _resolves_to_str(value)
    ):
        return value
    if "'" not in value and value.isprintable():
        return (
            "'" + value + "'"
        )  # single quotes need no escapes: JSON in an annotation stays readable
    return _NOT_YAML_PRINTABLE.sub(_escape, json.dumps(value, ensure_ascii=False))


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else json.dumps(str(value))
    if isinstance(value, str):
        return scalar_text(value)
    raise TypeError(f"cannot write {type(value).__name__} in a manifest")


def _emit(value: Any, indent: str, out: list[str]) -> None:
    """Append the block lines of a non-empty mapping or list at ``indent``."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            head = f"{indent}{scalar_text(str(key))}:"
            _emit_item(head, item, indent + "  ", out)
    else:
        for item in value:
            _emit_list_item(item, indent, out)


def _literal_lines(value: str) -> list[str] | None:
    """The lines of a ``|`` block for ``value``, when one writes it back exactly."""
    if not value.endswith("\n") or value.endswith("\n\n") or value.startswith((" ", "\n")):
        return None
    lines = value[:-1].split("\n")
    if all(line.isprintable() and line == line.rstrip() and "\t" not in line for line in lines):
        return lines
    return None


def _emit_item(head: str, item: Any, child_indent: str, out: list[str]) -> None:
    literal = _literal_lines(item) if isinstance(item, str) else None
    if literal is not None:
        out.append(f"{head} |")
        out.extend(f"{child_indent}{line}" if line else "" for line in literal)
        return
    if isinstance(item, Mapping | list | tuple) and item:
        out.append(head)
        _emit(item, child_indent, out)
    elif isinstance(item, Mapping):
        out.append(f"{head} {{}}")
    elif isinstance(item, list | tuple):
        out.append(f"{head} []")
    else:
        out.append(f"{head} {_scalar(item)}")


def _emit_list_item(item: Any, indent: str, out: list[str]) -> None:
    if (isinstance(item, Mapping) and item) or (isinstance(item, list | tuple) and item):
        start = len(out)
        _emit(item, indent + "  ", out)
        out[start] = f"{indent}- {out[start][len(indent) + 2 :]}"
    else:
        _emit_item(f"{indent}-", item, indent + "  ", out)


def dump(document: Mapping[str, Any] | Sequence[Any], header: str = "") -> bytes:
    """One YAML document as bytes: ``header`` comment lines, the body, a final newline."""
    out = [f"# {line}".rstrip() for line in header.splitlines()]
    if document:
        _emit(document, "", out)
    else:
        out.append("{}" if isinstance(document, Mapping) else "[]")
    return ("\n".join(out) + "\n").encode("utf-8")

"""YAML text read as Karmada reads it: ``yaml.YAMLToJSON`` of sigs.k8s.io/yaml over go-yaml v2.

A fieldOverrider's ``yaml`` patch starts with ``yaml.YAMLToJSON(text)``: go-yaml v2 decodes the
first document into ``interface{}`` values, sigs.k8s.io/yaml turns map keys into strings and
``encoding/json`` writes the JSON the patch is applied to. libyaml (through PyYAML) parses the
text here into events, untouched by PyYAML's own YAML 1.1 resolver; what each becomes follows
go-yaml v2's ``resolve`` and ``decoder``:

- a plain scalar is looked up (booleans ``y``/``yes``/``on``..., nulls, ``.inf``/``.nan``;
  ``<<`` is text, a merge only as a key), then, when it starts with a digit, ``+`` or ``-``:
  a timestamp stays its text, an integer is Go's ``ParseInt(s, 0, 64)`` after dropping ``_``
  (``0x``, ``0o``, ``0b`` and a leading ``0`` for octal), else ``ParseUint``, else a float
  when it looks like one and does not overflow; anything else is a string (no base-60
  numbers, unlike YAML 1.1);
- ``!!binary`` is the decoded bytes as text, other tags are resolved as their scalar reads,
  the non-specific ``!`` and unknown tags leave the text;
- ``<<`` merges a map (or a list of maps, the earlier winning) where it stands: a key written
  before it is overwritten, one written after it wins;
- a null, list or map key fails (sigs.k8s.io/yaml cannot write it as a JSON key), a float key
  is written as Go formats a float32, a boolean as ``true``/``false``;
- only the first document is read.

Numbers come back as ``RawNumber``, the text ``encoding/json`` writes for them.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct
from typing import Any

import yaml

from webhook.karmada.gojson import EncodingError, RawNumber, go_json_float, go_yaml_float

try:
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

PLAIN = "tag:fedgate,2026:plain"
"""The tag the loader gives an untagged plain scalar, so that go-yaml's rules resolve it."""
_YAML = "tag:yaml.org,2002:"


def _first_document(text: str) -> yaml.Node | None:
    """The first document's node graph, composed from libyaml's events (the scanner go-yaml
    ports), each scalar tagged as go-yaml will read it: PLAIN when plain and untagged, a
    string when quoted or tagged with the non-specific ``!``, else its explicit tag."""
    anchors: dict[str, yaml.Node] = {}
    stack: list[tuple[yaml.Node, list[Any]]] = []
    root: list[yaml.Node] = []

    def place(node: yaml.Node, anchor: str | None) -> None:
        if anchor is not None:
            anchors[anchor] = node
        (stack[-1][1] if stack else root).append(node)

    for event in yaml.parse(text, Loader=_BaseLoader):
        if isinstance(event, yaml.ScalarEvent):
            if event.tag is None and not event.style:
                tag = PLAIN
            elif event.tag in (None, "!"):
                tag = _YAML + "str"
            else:
                tag = event.tag
            place(yaml.ScalarNode(tag, event.value, style=event.style), event.anchor)
        elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            kind = (
                yaml.SequenceNode
                if isinstance(event, yaml.SequenceStartEvent)
                else yaml.MappingNode
            )
            collection: yaml.Node = kind(event.tag or "", [])
            place(collection, event.anchor)
            stack.append((collection, []))
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            done, children = stack.pop()
            done.value = (
                children
                if isinstance(done, yaml.SequenceNode)
                else list(zip(children[::2], children[1::2], strict=True))
            )
        elif isinstance(event, yaml.AliasEvent):
            if event.anchor not in anchors:
                raise EncodingError(f"unknown anchor {event.anchor!r} referenced")
            (stack[-1][1] if stack else root).append(anchors[event.anchor])
        elif isinstance(event, yaml.DocumentEndEvent):
            break
    return root[0] if root else None


_BOOLS = {"y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"}
_BOOLS_FALSE = {"n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"}
_NULLS = {"", "~", "null", "Null", "NULL"}
_SPECIAL_FLOATS = {
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}
_STYLE_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_DOT_FLOAT = re.compile(r"^\.[0-9]+(?:[eE][-+]?[0-9]+)?$")
_INT64, _UINT64 = 1 << 63, 1 << 64
_GO_INT = re.compile(
    r"(?P<sign>[-+]?)(?:0[xX](?P<hex>[0-9a-fA-F]+)|0[oO](?P<oct>[0-7]+)|0[bB](?P<bin>[01]+)"
    r"|(?P<zero>0[0-7]*)|(?P<dec>[1-9][0-9]*))"
)
_VISITS = 1_000_000
"""go-yaml v2 refuses documents whose aliases expand too far; so does the reader, past this
many nodes."""


def go_parse_int(text: str) -> int | None:
    """``strconv.ParseInt(text, 0, 64)``, failing that ``ParseUint(text, 0, 64)``: the value, or
    None when both fail (a base prefix, a leading 0 for octal; ParseUint takes no sign)."""
    match = _GO_INT.fullmatch(text)
    if match is None:
        return None
    base, digits = next((b, match[g]) for g, b in _BASES if match[g] is not None)
    value = int(digits, base)
    if match["sign"] == "-":
        value = -value
    if -_INT64 <= value < _INT64 or (not match["sign"] and value < _UINT64):
        return value
    return None


_BASES = (("hex", 16), ("oct", 8), ("bin", 2), ("zero", 8), ("dec", 10))


def _float(text: str) -> float | None:
    """``strconv.ParseFloat(text, 64)`` for text of the float shapes go-yaml tries: None when
    it overflows (Go reports a range error)."""
    value = float(text)
    return None if math.isinf(value) else value


def resolve_plain(text: str) -> bool | int | float | str | None:
    """go-yaml v2's ``resolve("", text)`` as it decodes into ``interface{}`` (a timestamp
    stays its text, as does anything that is no number)."""
    if text in _BOOLS:
        return True
    if text in _BOOLS_FALSE:
        return False
    if text in _NULLS:
        return None
    if text in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[text]
    if text[0] == "." and _DOT_FLOAT.match(text):
        found = _float(text)
        return text if found is None else found
    if text[0] in "+-0123456789":
        plain = text.replace("_", "")
        number = go_parse_int(plain)
        if number is not None:
            return number
        if _STYLE_FLOAT.match(plain):
            found = _float(plain)
            if found is not None:
                return found
    return text


def _binary(text: str) -> str:
    try:
        data = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise EncodingError("!!binary value is not valid base64") from None
    return data.decode("utf-8", errors="replace")


def _scalar(node: yaml.ScalarNode) -> Any:
    tag, text = node.tag, str(node.value)
    if tag == PLAIN:
        return resolve_plain(text)
    if tag == _YAML + "binary":
        return _binary(text)
    if tag in (_YAML + "int", _YAML + "float", _YAML + "bool", _YAML + "null"):
        kind = tag.removeprefix(_YAML)
        if kind == "null":
            return text  # go-yaml does not resolve !!null: the text stays
        value = resolve_plain(text) if text else None
        wanted: tuple[type, ...] = {"int": (int,), "float": (int, float), "bool": (bool,)}[kind]
        if (isinstance(value, bool) and kind != "bool") or not isinstance(value, wanted):
            raise EncodingError(f"cannot decode {text!r} as a !!{kind}")
        return float(value) if kind == "float" and isinstance(value, int) else value
    return text  # !!str, "!", a quoted scalar, a tag go-yaml does not know


def _key(value: Any) -> str:
    """sigs.k8s.io/yaml's ``convertToJSONableObject`` for a map key."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float32_text(value)
    raise EncodingError(f"unsupported map key {value!r}: it cannot be a JSON key")


def _float32_text(value: float) -> str:
    """``strconv.FormatFloat(value, 'g', -1, 32)``, with go-yaml's names for NaN and Inf."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    single = struct.unpack("f", struct.pack("f", value))[0]
    for precision in range(1, 10):
        text = f"{single:.{precision}g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            return go_yaml_float(float(text))
    return go_yaml_float(single)  # pragma: no cover - 9 digits always round-trip a float32


class _Converter:
    def __init__(self) -> None:
        self.active: set[int] = set()
        self.visits = 0

    def value(self, node: yaml.Node) -> Any:
        if id(node) in self.active:
            raise EncodingError("an alias refers to the node that contains it")
        self.visits += 1
        if self.visits > _VISITS:
            raise EncodingError("document contains excessive aliasing")
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.ScalarNode):
                return _scalar(node)
            if isinstance(node, yaml.SequenceNode):
                return [self.value(child) for child in node.value]
            if not isinstance(node, yaml.MappingNode):  # pragma: no cover - the three kinds
                raise EncodingError(f"unexpected YAML node {node!r}")
            return self.mapping(node)
        finally:
            self.active.discard(id(node))

    def mapping(self, node: yaml.MappingNode) -> dict[str, Any]:
        """go-yaml v2's ``d.mapping`` into a map: each pair set in document order."""
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if (
                isinstance(key_node, yaml.ScalarNode)
                and key_node.tag in (PLAIN, _YAML + "merge")
                and key_node.value == "<<"
            ):
                self.merge(value_node, out)
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise EncodingError("a list or a map cannot be a map key")
            key = _key(self.value(key_node))
            out.pop(key, None)
            out[key] = self.value(value_node)
        return out

    def merge(self, node: yaml.Node, out: dict[str, Any]) -> None:
        """go-yaml v2's ``d.merge``: a map, or a list of maps merged last to first."""
        maps = node.value[::-1] if isinstance(node, yaml.SequenceNode) else [node]
        for each in maps:
            if not isinstance(each, yaml.MappingNode):
                raise EncodingError("map merge requires map or sequence of maps as the value")
            for key, value in self.value(each).items():
                out.pop(key, None)
                out[key] = value


def yaml_to_json(text: str) -> Any:
    """``yaml.YAMLToJSON``: the first document of ``text`` as a JSON value (null when none)."""
    try:
        node = _first_document(text)
    except yaml.YAMLError as exc:
        raise EncodingError(f"not valid YAML: {exc}") from None
    if node is None:
        return None
    return _json(_Converter().value(node))


def _json(value: Any) -> Any:
    """What ``encoding/json`` writes for the decoded document (numbers as their text); a NaN
    or an infinity left in it fails, as json.Marshal does."""
    if isinstance(value, dict):
        return {key: _json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json(item) for item in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return RawNumber(str(value))
    if math.isnan(value) or math.isinf(value):
        raise EncodingError(f"json: unsupported value: {go_yaml_float(value)}")
    return RawNumber(go_json_float(value))

"""The text a fieldOverrider writes back into a string field, as Karmada's Go libraries write it.

Karmada v1.18 (``applyFieldOverriders`` in ``pkg/util/overridemanager/overridemanager.go``)
patches JSON or YAML held in a string field (a ConfigMap's data) and stores the result as text:

- JSON: ``evanphx/json-patch/v5`` marshals the patched document compactly, keys in document
  order, a value no operation touched as it was written (numbers and strings: ``gojson.json_loads``
  keeps their text, ``gojson.json_dumps`` writes it back), new strings with Go's escaping; HTML
  characters (``<``, ``>``, ``&``) and U+2028/U+2029 as ``\\u`` escapes everywhere. Known
  differences: the keys of an object no operation walked through are written anew (json-patch
  keeps their escapes), and a key written twice is written once (json-patch writes it twice,
  with the last value).
- YAML: ``sigs.k8s.io/yaml`` (v1.6.0 over ``go.yaml.in/yaml/v2`` v2.4.3) converts the text to
  JSON (``goyaml.yaml_to_json``), and the patched JSON back to YAML (``to_yaml``): go-yaml
  reads the JSON text again, so a number is an integer when its text is one (``1.0`` was
  written ``1``, ``-0`` reads as ``0``) and a float otherwise; then block style, keys in
  go-yaml's natural order, sequences not indented below their key, strings quoted only where
  go-yaml quotes them.

``to_yaml`` follows go-yaml v2's encoder and libyaml's emitter for the documents a ConfigMap
holds (maps, lists, strings, numbers, booleans, null); its output always parses back to the
same value (a property test holds it to that), and for ordinary documents it is byte for byte
what Karmada writes (the ported Karmada test and the cases in test_encoding.py). Known
differences, all in text no ConfigMap should hold: strings with line breaks other than ``\n``
are double-quoted (go-yaml would fold them), keys over 128 characters are not written as
``?`` complex keys.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from webhook.karmada.gojson import RawNumber, go_json_float, go_yaml_float
from webhook.karmada.goyaml import resolve_plain

# ----------------------------------------------------------------------------- JSON to YAML

_BASE60 = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")
_TIMESTAMP = re.compile(r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}[Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}")
_INDICATORS = set("#,[]{}&*!|>'\"%@`")


def _resolves_to_string(text: str) -> bool:
    """go-yaml v2's encoder writes a string plain only when ``resolve("", text)`` gives
    ``!!str`` (no timestamp either) and it is no base-60 float."""
    if _timestamp(text) or _BASE60.match(text):
        return False
    return isinstance(resolve_plain(text), str)


def _timestamp(text: str) -> bool:
    return bool(re.fullmatch(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}", text) or _TIMESTAMP.match(text))


def _printable(char: str) -> bool:
    """libyaml's ``is_printable`` (the characters it writes without escaping)."""
    code = ord(char)
    return (
        char in "\t\n\r"
        or 0x20 <= code <= 0x7E
        or code == 0x85
        or (0xA0 <= code <= 0xD7FF and unicodedata.category(char) != "Cs")
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
        or 0x10000 <= code <= 0x10FFFF
    )


def _plain_allowed(text: str) -> bool:
    """libyaml's ``yaml_emitter_analyze_scalar`` for a block-context plain scalar."""
    if text.startswith(("---", "...")) or text[0] in " \t" or text[-1] in " \t":
        return False
    if text[0] in _INDICATORS or (text[0] in "-?:" and (len(text) == 1 or text[1] in " \t")):
        return False
    if any(not _printable(c) or c in "\n\r\x85\u2028\u2029" for c in text):
        return False
    for index, char in enumerate(text):
        following = text[index + 1] if index + 1 < len(text) else ""
        if char == ":" and following in ("", " ", "\t"):
            return False
        if char == "#" and text[index - 1] in " \t":
            return False
    return True


def _single_quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _double_quoted(text: str) -> str:
    out = []
    for char in text:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif _printable(char) and char not in "\n\r\t\x85\u2028\u2029" and code != 0xFEFF:
            out.append(char)
        else:
            named = {"\0": "0", "\a": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v"}
            named |= {"\f": "f", "\r": "r", "\x1b": "e", "\x85": "N", "\xa0": "_"}
            named |= {"\u2028": "L", "\u2029": "P"}
            if char in named:
                out.append("\\" + named[char])
            elif code <= 0xFF:
                out.append(f"\\x{code:02X}")
            elif code <= 0xFFFF:
                out.append(f"\\u{code:04X}")
            else:
                out.append(f"\\U{code:08X}")
    return '"' + "".join(out) + '"'


def _literal(text: str, indent: int) -> str:
    """A ``|`` block scalar with libyaml's chomping and indentation hints."""
    hints = "2" if text[0] in " \n" else ""
    if not text.endswith("\n"):
        hints += "-"
    elif len(text) == 1 or text[-2] == "\n":
        hints += "+"
    pad = " " * indent
    lines = text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
    body = "\n".join(pad + line if line else "" for line in lines)
    return f"|{hints}\n{body}"


def _block_allowed(text: str) -> bool:
    """Block styles need printable text without trailing spaces before a line break."""
    if any(not _printable(c) or c in "\r\x85\u2028\u2029" for c in text):
        return False
    return not re.search(r"[ \t]\n|\n[ \t]*\n[ \t]", text) and not text.endswith((" ", "\t"))


def _key(text: str) -> str:
    """A mapping key: libyaml writes a block-scalar key double-quoted (a simple key is one
    line)."""
    return _double_quoted(text) if any(c in _BREAKS for c in text) else _string(text, 0)


_BREAKS = frozenset("\n\r\x85\u2028\u2029")


def _string(text: str, indent: int) -> str:
    if any(c in _BREAKS for c in text) and "\n" not in text:
        return _double_quoted(text)  # other line breaks: quoted, so they read back as written
    if "\n" in text:
        if _block_allowed(text):
            return _literal(text, indent)
        return _double_quoted(text)
    if not _resolves_to_string(text):
        return _double_quoted(text)
    if _plain_allowed(text):
        return text
    return _single_quoted(text) if all(_printable(c) for c in text) else _double_quoted(text)


def _letter(char: str) -> bool:
    """Go's ``unicode.IsLetter``."""
    return unicodedata.category(char).startswith("L")


def _digit(char: str) -> bool:
    """Go's ``unicode.IsDigit`` (decimal digits only; ``²`` is not one)."""
    return unicodedata.category(char) == "Nd"


def _natural_less(a: str, b: str) -> bool:
    """go-yaml v2's ``keyList.Less`` for two string keys: letters before digits, digit runs
    compared as numbers."""
    for i in range(min(len(a), len(b))):
        if a[i] == b[i]:
            continue
        a_letter, b_letter = _letter(a[i]), _letter(b[i])
        if a_letter and b_letter:
            return a[i] < b[i]
        if a_letter or b_letter:
            return b_letter
        a_number = b_number = 0
        if a[i] == "0" or b[i] == "0":
            j = i - 1
            while j >= 0 and _digit(a[j]):
                if a[j] != "0":
                    a_number = b_number = 1
                    break
                j -= 1
        a_end = i
        while a_end < len(a) and _digit(a[a_end]):
            a_number = a_number * 10 + ord(a[a_end]) - ord("0")
            a_end += 1
        b_end = i
        while b_end < len(b) and _digit(b[b_end]):
            b_number = b_number * 10 + ord(b[b_end]) - ord("0")
            b_end += 1
        if a_number != b_number:
            return a_number < b_number
        if a_end != b_end:
            return a_end < b_end
        return a[i] < b[i]
    return len(a) < len(b)


def _sorted_keys(keys: list[str]) -> list[str]:
    ordered: list[str] = []
    for key in keys:  # insertion sort: key lists of a ConfigMap document are short
        position = len(ordered)
        while position > 0 and _natural_less(key, ordered[position - 1]):
            position -= 1
        ordered.insert(position, key)
    return ordered


def _scalar(value: Any, indent: int) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, RawNumber):
        return _number(value)
    if isinstance(value, int):
        return _number(str(value))
    if isinstance(value, float):
        return _number(go_json_float(value))
    return _string(str(value), indent)


_JSON_INTEGER = re.compile(r"-?[0-9]+")


def _number(text: str) -> str:
    """A JSON number as ``JSONToYAML`` writes it: go-yaml reads the text back as an int64 or
    uint64 when it is one, else as a float64."""
    if _JSON_INTEGER.fullmatch(text):
        value = int(text)
        if -(1 << 63) <= value < (1 << 64):
            return str(value)
    return go_yaml_float(float(text))


def _lines(value: Any, indent: int) -> list[str]:
    """The block lines of a collection value, each already indented."""
    pad = " " * indent
    out: list[str] = []
    if isinstance(value, Mapping):
        for key in _sorted_keys([str(k) for k in value]):
            item = value[key]
            head = f"{pad}{_key(key)}:"
            out += _member(head, item, indent, in_sequence=False)
    else:
        for item in value:
            out += _member(f"{pad}-", item, indent, in_sequence=True)
    return out


def _member(head: str, item: Any, indent: int, *, in_sequence: bool) -> list[str]:
    if isinstance(item, Mapping | list) and item:
        if in_sequence:
            nested = _lines(item, indent + 2)
            first = nested[0][indent + 2 :]
            return [f"{head} {first}", *nested[1:]]
        child = indent if isinstance(item, list) else indent + 2
        return [head, *_lines(item, child)]
    if isinstance(item, Mapping | list):
        return [f"{head} {'{}' if isinstance(item, Mapping) else '[]'}"]
    return [f"{head} {_scalar(item, indent + 2)}"]


def to_yaml(value: Any) -> str:
    """``yaml.JSONToYAML``: go-yaml v2's block output of a JSON value."""
    if isinstance(value, Mapping | list) and value:
        return "\n".join(_lines(value, 0)) + "\n"
    if isinstance(value, Mapping):
        return "{}\n"
    if isinstance(value, list):
        return "[]\n"
    return _scalar(value, 2) + "\n"

"""Parse YAML into plain values while remembering the line of every key and item.

Errors must name file, line and field path, so loading keeps a position index beside the
data. Parsing uses libyaml's composer through PyYAML (about 0.3 ms for an app spec, against
10 ms for ruamel.yaml's round-trip loader, which is what line numbers would otherwise cost):
the node tree carries marks, and we build values from it ourselves, which also lets us refuse
duplicate keys (PyYAML silently keeps the last one) and bound alias expansion.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from webhook.base.errors import Finding, describe_os_error, not_utf8

try:  # libyaml is the fast path; the pure-Python composer gives the same nodes.
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

PathLike = str | os.PathLike[str]
PathKey = str | int
Path = tuple[PathKey, ...]

MAX_NODES = 200_000
"""Upper bound on values built from one document, so aliases cannot expand without limit."""

MAX_DEPTH = 150
"""Deepest nesting built (Kubernetes objects nest about 15 deep; an AdmissionReview adds 2), so
a deep or self-referencing document is an error, never a RecursionError."""

_BOOL_TAG = "tag:yaml.org,2002:bool"
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_NULL_TAG = "tag:yaml.org,2002:null"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_PLAIN_TAG = "tag:fedgate,2026:plain"
_NULLS = ("", "~", "null", "Null", "NULL")
"""The tag a plain, untagged scalar gets when a caller resolves plain scalars itself."""

PlainResolver = Callable[[str], Any]
"""What a plain, untagged scalar's text is (``parse_documents(plain=...)``)."""


class _PlainMarkingLoader(_Loader):
    """Composes as ``_Loader`` does, but tags each plain untagged scalar ``_PLAIN_TAG``
    instead of resolving it by YAML 1.1 (libyaml's composer asks ``resolve`` for each)."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode and implicit[0]:
            return _PLAIN_TAG
        return super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]


class YamlSyntaxError(Exception):
    """The text is not YAML fedgate can read; ``finding`` says where and why."""

    def __init__(self, finding: Finding) -> None:
        self.finding = finding
        super().__init__(finding.render())


def read_text(path: PathLike, display: str | None = None) -> str:
    """The UTF-8 text of a file; raises YamlSyntaxError naming the file (and, for bytes that
    are not UTF-8, the line and column) when it cannot be read."""
    name = display or str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise YamlSyntaxError(
            Finding(name, 0, "", f"cannot read: {describe_os_error(exc)}")
        ) from None
    except ValueError:  # a NUL in the name (from a file that names another)
        raise YamlSyntaxError(
            Finding(name.replace("\0", "\\0"), 0, "", "cannot read: a NUL character in the name")
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlSyntaxError(not_utf8(name, data, exc)) from None


@dataclass(frozen=True)
class Document:
    """One YAML document: its plain value and the 1-based line of every path in it."""

    file: str
    data: Any
    lines: Mapping[Path, int] = field(repr=False)
    index: int = 0

    def line(self, path: Path) -> int:
        """The line of ``path``, or of its nearest ancestor that has one."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), 1)

    def finding(self, path: Path, message: str) -> Finding:
        """A finding located at ``path`` of this document."""
        return Finding(self.file, self.line(path), render_path(path), message)


def render_path(path: Path) -> str:
    """``("spec", "overrides", 0, "clusters")`` -> ``spec.overrides[0].clusters``."""
    out = ""
    for key in path:
        if isinstance(key, int):
            out += f"[{key}]"
        elif _PLAIN_KEY.fullmatch(key):
            out += f".{key}" if out else key
        else:
            out += f'["{key}"]'
    return out


def parse_documents(text: str, file: str, *, plain: PlainResolver | None = None) -> list[Document]:
    """Every non-empty document of ``text``; raises YamlSyntaxError with its location.

    ``plain`` reads each plain, untagged scalar instead of YAML 1.1's resolution (PyYAML's):
    how another reader (Argo CD's go-yaml v2) types ``y`` or ``1e3``."""
    try:
        nodes = list(
            yaml.compose_all(text, Loader=_Loader if plain is None else _PlainMarkingLoader)
        )
    except yaml.MarkedYAMLError as exc:
        raise YamlSyntaxError(_syntax_finding(text, file, exc)) from None
    except yaml.reader.ReaderError as exc:  # a character YAML forbids, e.g. a control character
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        problem = f"character U+{exc.character:04X} is not allowed in YAML ({exc.reason})"
        raise YamlSyntaxError(
            Finding(file, line, "", f"not valid YAML: {problem}", column=column)
        ) from None
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(Finding(file, 1, "", f"not valid YAML: {exc}")) from None
    documents = []
    for index, node in enumerate(n for n in nodes if not _empty(n)):
        builder = _Builder(file, plain)
        data = builder.build(node, ())
        documents.append(Document(file, data, builder.lines, index))
    return documents


def _empty(node: yaml.Node | None) -> bool:
    """An empty document (``---`` with nothing after it, or ``null``): skipped, as kubectl
    skips it."""
    return node is None or (
        isinstance(node, yaml.ScalarNode)
        and (node.tag == _NULL_TAG or (node.tag == _PLAIN_TAG and node.value in _NULLS))
    )


def _syntax_finding(text: str, file: str, exc: yaml.MarkedYAMLError) -> Finding:
    """Where and why libyaml stopped, with line and column; a tab is named as such."""
    mark = exc.problem_mark or exc.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark else (1, 0)
    lines = text.splitlines()
    found = lines[line - 1][column - 1 : column] if column and line <= len(lines) else ""
    if found == "\t":
        problem = "a tab character; YAML indents with spaces only: replace the tab with spaces"
    else:
        problem = " ".join(part for part in (exc.context, exc.problem) if part)
        started = exc.context_mark.line + 1 if exc.context_mark else line
        if started != line:
            problem += f" (it started on line {started})"
    return Finding(file, line, "", f"not valid YAML: {problem}", column=column)


def parse_single(text: str, file: str) -> Document:
    """Exactly one document (an empty file is an error)."""
    documents = parse_documents(text, file)
    if len(documents) != 1:
        count = "no document" if not documents else f"{len(documents)} documents"
        raise YamlSyntaxError(Finding(file, 1, "", f"expected one YAML document, found {count}"))
    return documents[0]


class _Builder:
    def __init__(self, file: str, plain: PlainResolver | None = None) -> None:
        self.file = file
        self.plain = plain
        self.lines: dict[Path, int] = {}
        self.count = 0

    def fail(self, node: yaml.Node, path: Path, message: str) -> YamlSyntaxError:
        return YamlSyntaxError(
            Finding(self.file, node.start_mark.line + 1, render_path(path), message)
        )

    def build(self, node: yaml.Node, path: Path) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise self.fail(node, path, f"document too large (over {MAX_NODES} values)")
        if len(path) > MAX_DEPTH:
            raise self.fail(
                node,
                path[:3],
                f"nested deeper than {MAX_DEPTH} levels (or an alias used inside its own anchor)",
            )
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.ScalarNode):
            if node.tag == _PLAIN_TAG and self.plain is not None:
                return self.plain(node.value)
            return _scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            return dict(self._pairs(node, path))
        raise self.fail(node, path, f"unsupported YAML node {type(node).__name__}")

    def _pairs(self, node: yaml.MappingNode, path: Path) -> Iterator[tuple[str, Any]]:
        seen: set[str] = set()
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG or (
                key_node.tag == _PLAIN_TAG and key_node.value == "<<"
            ):
                raise self.fail(key_node, path, "merge keys (<<) are not supported")
            if (
                not isinstance(key_node, yaml.ScalarNode)
                or key_node.tag == _NULL_TAG
                or (
                    key_node.tag == _PLAIN_TAG and self.plain and self.plain(key_node.value) is None
                )
            ):
                raise self.fail(key_node, path, "mapping keys must be strings")
            key = key_node.value
            if key in seen:
                raise self.fail(key_node, (*path, key), "duplicate key")
            seen.add(key)
            self.lines[(*path, key)] = key_node.start_mark.line + 1
            yield key, self.build(value_node, (*path, key))


_constructor = yaml.SafeLoader("")


def _scalar(node: yaml.ScalarNode) -> Any:
    if node.tag in (_BOOL_TAG, _INT_TAG, _FLOAT_TAG, _NULL_TAG):
        return _constructor.construct_object(node)
    return node.value  # strings, and timestamps kept as the text the user wrote

"""Typed field access over a parsed document that collects every problem, located.

Both user formats (the app spec and the policy bundle) are declared with these helpers, so a
file's errors are all reported at once, each with line and field path, and an unknown key is
named with the closest known one (a typo must not be silently ignored).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Mapping
from typing import Any

from webhook.base.errors import Finding
from webhook.base.labels import (
    InvalidSelector,
    label_key_problem,
    label_selector,
    label_value_problem,
)
from webhook.base.yamlsource import Document, Path

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
"""RFC 1123 label: names of apps, namespaces, clusters and tenants (at most 63 characters)."""


def _type_name(value: Any) -> str:
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}
    names.update({list: "a list", dict: "a mapping", type(None): "empty"})
    return names.get(type(value), type(value).__name__)


class Checker:
    """Reads fields of one document, recording a finding for every problem instead of raising."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.findings: list[Finding] = []

    def report(self, path: Path, message: str) -> None:
        self.findings.append(self.document.finding(path, message))

    def get(self, path: Path) -> Any:
        """The raw value at ``path`` (None when absent)."""
        value: Any = self.document.data
        for key in path:
            if isinstance(value, dict) and isinstance(key, str):
                value = value.get(key)
            elif isinstance(value, list) and isinstance(key, int) and key < len(value):
                value = value[key]
            else:
                return None
        return value

    def mapping(
        self,
        path: Path,
        known: Collection[str],
        *,
        required: Collection[str] = (),
        elsewhere: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """The mapping at ``path`` ({} when absent or wrong); unknown and missing keys reported.
        ``elsewhere`` names where a key that is unknown here belongs (a key dedented one level
        too far): the report says so instead of listing this mapping's keys."""
        value = self.get(path)
        if value is None:
            value = {}
        if not isinstance(value, dict):
            self.report(path, f"must be a mapping, not {_type_name(value)}")
            return {}
        for key in value:
            if key in known:
                continue
            home = (elsewhere or {}).get(key) if isinstance(key, str) else None
            if home is not None:
                self.report((*path, key), f"unknown key {key!r} here: did you mean {home}.{key}?")
            else:
                self.report((*path, key), _unknown_key(key, known))
        for key in required:
            if value.get(key) is None:
                self.report(path, f"{key} is required")
        return value

    def named_mapping(self, path: Path) -> dict[str, Any]:
        """A mapping whose keys the user chooses ({} when absent or not a mapping)."""
        value = self.get(path)
        return self.mapping(path, known=value if isinstance(value, dict) else ())

    def string(
        self,
        path: Path,
        *,
        default: str | None = None,
        pattern: re.Pattern[str] | None = None,
        hint: str = "",
        max_length: int | None = None,
        empty: bool = False,
    ) -> str | None:
        """The string at ``path`` (``empty``: "" is a value, as the core API group is)."""
        value = self.get(path)
        if value is None:
            return default
        if not isinstance(value, str):
            self.report(path, f"must be a string, not {_type_name(value)}")
            return default
        if not value and not empty:
            self.report(path, "must not be empty")
            return default
        if max_length is not None and len(value) > max_length:
            self.report(path, f"{value!r} is longer than {max_length} characters")
            return default
        if pattern is not None and not pattern.fullmatch(value):
            self.report(path, f"{value!r} is not valid{': ' + hint if hint else ''}")
            return default
        return value

    def name(self, path: Path, *, default: str | None = None) -> str | None:
        """A DNS-1123 label (app, namespace, cluster and tenant names)."""
        return self.string(
            path,
            default=default,
            pattern=DNS_LABEL,
            max_length=63,
            hint="use lower-case letters, digits and '-', starting and ending alphanumeric",
        )

    def integer(
        self,
        path: Path,
        *,
        default: int | None = None,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int | None:
        value = self.get(path)
        if value is None:
            return default
        if isinstance(value, float):
            self.report(path, f"must be a whole number, got {value}")
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            self.report(path, f"must be a whole number, not {_type_name(value)}")
            return default
        if minimum is not None and value < minimum:
            self.report(path, f"must be at least {minimum}, not {value}")
            return default
        if maximum is not None and value > maximum:
            self.report(path, f"must be at most {maximum}, not {value}")
            return default
        return value

    def boolean(self, path: Path, *, default: bool = False) -> bool:
        value = self.get(path)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.report(path, f"must be true or false, not {_type_name(value)}")
            return default
        return value

    def choice(
        self, path: Path, choices: Collection[str], *, default: str | None = None
    ) -> str | None:
        value = self.string(path, default=default)
        if value is not None and value not in choices:
            self.report(path, f"{value!r} is not one of {', '.join(choices)}")
            return default
        return value

    def string_list(
        self,
        path: Path,
        *,
        item: re.Pattern[str] | None = None,
        hint: str = "",
        unique: bool = True,
        empty: bool = False,
    ) -> tuple[str, ...]:
        value = self.get(path)
        if value is None:
            return ()
        if not isinstance(value, list):
            self.report(path, f"must be a list, not {_type_name(value)}")
            return ()
        out: list[str] = []
        for index in range(len(value)):
            text = self.string((*path, index), pattern=item, hint=hint, empty=empty)
            if text is None:
                continue
            if unique and text in out:
                self.report((*path, index), f"{text!r} is listed twice")
                continue
            out.append(text)
        return tuple(out)

    def string_map(self, path: Path, *, labels: bool = False) -> dict[str, str]:
        """A map of strings; with ``labels``, keys and values must be valid Kubernetes labels."""
        value = self.get(path)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.report(path, f"must be a mapping, not {_type_name(value)}")
            return {}
        out: dict[str, str] = {}
        for key, item in value.items():
            if not isinstance(item, str):
                self.report((*path, key), f"must be a string, not {_type_name(item)} (quote it)")
                continue
            problem = label_key_problem(key) or (label_value_problem(item) if labels else None)
            if problem:
                self.report((*path, key), problem)
                continue
            out[key] = item
        return out

    def label_selector(self, path: Path) -> Mapping[str, Any] | None:
        """A metav1.LabelSelector that decides what a rule applies to (None when absent): one
        Kubernetes would refuse to build is reported here, never loaded as a selector that
        silently matches nothing."""
        value = self.get(path)
        if value is None:
            return None
        try:
            label_selector(value)
        except InvalidSelector as exc:
            self.report(path, f"not a label selector Kubernetes accepts: {exc}")
            return None
        return value if isinstance(value, dict) else None

    def opaque(self, path: Path) -> Mapping[str, Any] | None:
        """A mapping passed through untouched (validated later against the Kubernetes schema)."""
        value = self.get(path)
        if value is None:
            return None
        if not isinstance(value, dict):
            self.report(path, f"must be a mapping, not {_type_name(value)}")
            return None
        return value


def _unknown_key(key: str, known: Collection[str]) -> str:
    close = difflib.get_close_matches(key, list(known), n=1)
    if close:
        return f"unknown key {key!r}: did you mean {close[0]!r}?"
    return f"unknown key {key!r}; known keys: {', '.join(sorted(known))}"

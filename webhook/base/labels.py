"""Kubernetes label selectors, as the API server builds and matches them.

Ported from ``metav1.LabelSelectorAsSelector`` and ``labels.NewRequirement`` (k8s.io/apimachinery):
a selector Kubernetes would refuse to build (a bad key or value, ``In`` without values, an unknown
operator) raises :class:`InvalidSelector`; :func:`labels_match` reads it as matching nothing, as
Karmada does. Where a selector decides whether a rule applies, load it with
:func:`label_selector` first, so that a bad one is an error at load, never a rule that silently
matches nothing. One port for every reader: rule bindings' ``objectSelector``,
ValidatingAdmissionPolicies' selectors, Karmada's ResourceSelectors and ClusterAffinities
(``webhook/karmada/selector.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\Z", re.ASCII)
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
_INTEGER = re.compile(r"^[+-]?[0-9]+\Z", re.ASCII)
_INT64 = 1 << 63


class InvalidSelector(ValueError):
    """A selector Kubernetes' label library refuses to build."""


def label_key_problem(key: str) -> str | None:
    """Why ``key`` is not a valid label or annotation key (``validation.IsQualifiedName``:
    ``[prefix/]name``), or None."""
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not _SUBDOMAIN.match(prefix)):
        return f"{key!r}: the prefix must be a DNS subdomain"
    if not 0 < len(name) <= 63 or not _NAME.match(name):
        return f"{key!r}: the name part must be 1-63 letters, digits, '-', '_' or '.'"
    return None


def label_value_problem(value: str) -> str | None:
    """Why ``value`` is not a valid label value (``validation.IsValidLabelValue``), or None."""
    if value and (len(value) > 63 or not _NAME.match(value)):
        return f"{value!r}: label values are at most 63 letters, digits, '-', '_' or '.'"
    return None


def _qualified_name(key: Any) -> bool:
    return isinstance(key, str) and label_key_problem(key) is None


def _label_value(value: Any) -> bool:
    return isinstance(value, str) and label_value_problem(value) is None


def _integer(value: str) -> int | None:
    if not _INTEGER.match(value):
        return None
    number = int(value)
    return number if -_INT64 <= number < _INT64 else None


def requirement(
    key: Any, operator: Any, values: Any, *, numeric: bool
) -> tuple[str, str, tuple[str, ...]]:
    """``labels.NewRequirement``: validated (key, operator, values)."""
    if not _qualified_name(key):
        raise InvalidSelector(f"invalid label key {key!r}")
    if values is None:
        values = []
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise InvalidSelector(f"values of {key} must be a list of strings")
    allowed = ("In", "NotIn", "Exists", "DoesNotExist") + (("Gt", "Lt") if numeric else ())
    if operator not in allowed:
        raise InvalidSelector(f"{operator!r} is not a valid label selector operator")
    if operator in ("In", "NotIn") and not values:
        raise InvalidSelector(f"{operator} of {key} needs at least one value")
    if operator in ("Exists", "DoesNotExist") and values:
        raise InvalidSelector(f"{operator} of {key} takes no values")
    if operator in ("Gt", "Lt") and (len(values) != 1 or _integer(values[0]) is None):
        raise InvalidSelector(f"{operator} of {key} needs one integer value")
    if not all(_label_value(v) for v in values):  # every operator's values, Gt and Lt too
        raise InvalidSelector(f"invalid label value in {values!r}")
    return key, operator, tuple(values)


def requirement_holds(
    requirement: tuple[str, str, tuple[str, ...]], labels: Mapping[str, str]
) -> bool:
    key, operator, values = requirement
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    number = _integer(labels.get(key, "")) if present else None
    bound = _integer(values[0])
    if number is None or bound is None:
        return False
    return number > bound if operator == "Gt" else number < bound


def label_selector(selector: Mapping[str, Any]) -> list[tuple[str, str, tuple[str, ...]]]:
    """``metav1.LabelSelectorAsSelector``: the requirements; raises InvalidSelector."""
    if not isinstance(selector, Mapping):
        raise InvalidSelector("a label selector must be an object")
    requirements = []
    match_labels = selector.get("matchLabels") or {}
    if not isinstance(match_labels, Mapping):
        raise InvalidSelector("matchLabels must be an object")
    for key, value in match_labels.items():
        if not _label_value(value):
            raise InvalidSelector(f"invalid label value {value!r}")
        requirements.append(requirement(key, "In", [value], numeric=False))
    expressions = selector.get("matchExpressions") or []
    if not isinstance(expressions, list):
        raise InvalidSelector("matchExpressions must be a list")
    for expression in expressions:
        if not isinstance(expression, Mapping):
            raise InvalidSelector("a matchExpressions item must be an object")
        requirements.append(
            requirement(
                expression.get("key"),
                expression.get("operator"),
                expression.get("values"),
                numeric=False,
            )
        )
    return requirements


def labels_match(selector: Mapping[str, Any], labels: Mapping[str, Any]) -> bool:
    """Whether a metav1.LabelSelector selects ``labels``; an invalid selector selects nothing."""
    try:
        requirements = label_selector(selector)
    except InvalidSelector:
        return False
    plain = {k: v for k, v in labels.items() if isinstance(k, str) and isinstance(v, str)}
    return all(requirement_holds(r, plain) for r in requirements)

"""What Karmada's API refuses of its own policies: such a policy never exists, so Karmada never
applies it.

Two gates stand before a PropagationPolicy, ClusterPropagationPolicy, OverridePolicy or
ClusterOverridePolicy is stored (karmada v1.18.0):

- the CRD schema (``charts/karmada/_crds/bases/policy/``, from ``pkg/apis/policy/v1alpha1``):
  the required fields and enums of the overriders (an operator outside ``add`` / ``remove`` /
  ``replace``, or none; an image component outside ``Registry`` / ``Repository`` / ``Tag``; a
  rule without ``overriders``; a policy without ``resourceSelectors``);
- karmada-webhook, after its mutation (a namespaced policy's resource selectors default to the
  policy's namespace): ``pkg/util/validation/validation.go`` ``ValidateOverrideSpec`` (the
  deprecated ``targetCluster`` / ``overriders`` beside ``overrideRules``, label and annotation
  values, JSON pointers, a fieldOverrider with both or neither of json / yaml, a value with
  ``remove`` or none with ``add`` / ``replace``) and ``ValidatePropagationSpec``
  (``clusterAffinity`` beside ``clusterAffinities``, suspension ``dispatching`` beside
  ``dispatchingOnClusters``);
  for both, ``ValidatePolicyFieldSelector``: a cluster fieldSelector may only read
  ``provider``, ``region`` or ``zone`` with ``In`` or ``NotIn``.

Karmada's unit functions (``ClusterMatches``, the overriders) accept more than this; the
tables that test them run them directly. Pure: a policy in, its refusals out.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from webhook.base.labels import label_key_problem, label_value_problem

OVERRIDE_KINDS = ("OverridePolicy", "ClusterOverridePolicy")
PROPAGATION_KINDS = ("PropagationPolicy", "ClusterPropagationPolicy")
_OPERATORS = ("add", "remove", "replace")
_COMPONENTS = ("Registry", "Repository", "Tag")
_FIELD_KEYS = ("provider", "region", "zone")
_ANNOTATIONS_TOTAL = 256 * 1024

Refusal = tuple[str, str]
"""(the field's path, why it is refused)."""


def refusals(policy: Mapping[str, Any]) -> list[Refusal]:
    """Why Karmada's API would refuse ``policy`` (empty: it is stored)."""
    spec = policy.get("spec")
    if not isinstance(spec, Mapping):
        return []
    kind = policy.get("kind")
    metadata = policy.get("metadata")
    namespace = metadata.get("namespace") if isinstance(metadata, Mapping) else None
    namespace = namespace if isinstance(namespace, str) else ""
    if kind in OVERRIDE_KINDS:
        return list(_override_spec(spec, namespace if kind == "OverridePolicy" else ""))
    if kind in PROPAGATION_KINDS:
        return list(_propagation_spec(spec, namespace if kind == "PropagationPolicy" else ""))
    return []


# ---------------------------------------------------------------------------- both kinds


def _selectors_namespace(selectors: Any, namespace: str, path: str) -> Iterator[Refusal]:
    """``validateResourceSelectors`` after the mutating webhook set empty namespaces."""
    if not namespace or not isinstance(selectors, list):
        return
    for index, selector in enumerate(selectors):
        given = selector.get("namespace") if isinstance(selector, Mapping) else None
        if given and given != namespace:
            yield (
                f"{path}[{index}].namespace",
                f"namespace of resource selector must be the same as the namespace of the "
                f"policy ({namespace!r}), not {given!r}",
            )


def _field_selector(affinity: Any, path: str) -> Iterator[Refusal]:
    """``ValidateClusterAffinity``: ``ValidatePolicyFieldSelector`` on its fieldSelector."""
    if not isinstance(affinity, Mapping):
        return
    selector = affinity.get("fieldSelector")
    expressions = selector.get("matchExpressions") if isinstance(selector, Mapping) else None
    for expression in expressions if isinstance(expressions, list) else []:
        item = expression if isinstance(expression, Mapping) else {}
        key, operator = item.get("key"), item.get("operator")
        if key not in _FIELD_KEYS:
            yield (
                f"{path}.fieldSelector",
                f"unsupported key {key!r}, must be provider, region, or zone",
            )
            return
        if operator not in ("In", "NotIn"):
            yield (
                f"{path}.fieldSelector",
                f"unsupported operator {operator!r}, must be In or NotIn",
            )
            return


# ----------------------------------------------------------------------------- propagation


def _propagation_spec(spec: Mapping[str, Any], namespace: str) -> Iterator[Refusal]:
    selectors = spec.get("resourceSelectors")
    if not isinstance(selectors, list) or not selectors:
        yield ("spec.resourceSelectors", "at least one resource selector is required (CRD)")
    yield from _selectors_namespace(selectors, namespace, "spec.resourceSelectors")
    placement = spec.get("placement")
    placement = placement if isinstance(placement, Mapping) else {}
    if (
        placement.get("clusterAffinity") is not None
        and placement.get("clusterAffinities") is not None
    ):
        yield ("spec.placement", "clusterAffinities cannot co-exist with clusterAffinity")
    yield from _field_selector(placement.get("clusterAffinity"), "spec.placement.clusterAffinity")
    terms = placement.get("clusterAffinities")
    for index, term in enumerate(terms if isinstance(terms, list) else []):
        yield from _field_selector(term, f"spec.placement.clusterAffinities[{index}]")
    suspension = spec.get("suspension")
    if isinstance(suspension, Mapping) and suspension.get("dispatching") is True:
        on = suspension.get("dispatchingOnClusters")
        names = on.get("clusterNames") if isinstance(on, Mapping) else None
        if names:
            yield (
                "spec.suspension",
                "suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames",
            )


# -------------------------------------------------------------------------------- override


def _override_spec(spec: Mapping[str, Any], namespace: str) -> Iterator[Refusal]:
    rules = spec.get("overrideRules")
    deprecated = spec.get("overriders")
    if spec.get("targetCluster") is not None:
        yield from _field_selector(spec["targetCluster"], "spec.targetCluster")
        if rules is not None:
            yield ("spec.targetCluster", "overrideRules and targetCluster can't co-exist")
    if rules is not None and isinstance(deprecated, Mapping) and _any_overrider(deprecated):
        yield ("spec.overriders", "overrideRules and overriders can't co-exist")
    if isinstance(deprecated, Mapping):
        yield from _schema(deprecated, "spec.overriders")
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        path = f"spec.overrideRules[{index}]"
        if not isinstance(rule, Mapping) or not isinstance(rule.get("overriders"), Mapping):
            yield (f"{path}.overriders", "an override rule needs overriders (CRD)")
            continue
        yield from _schema(rule["overriders"], f"{path}.overriders")
        yield from _webhook(rule["overriders"], f"{path}.overriders")
        yield from _field_selector(rule.get("targetCluster"), f"{path}.targetCluster")
    yield from _selectors_namespace(
        spec.get("resourceSelectors"), namespace, "spec.resourceSelectors"
    )


def _any_overrider(overriders: Mapping[str, Any]) -> bool:
    """Not ``emptyOverrides`` (which does not look at fieldOverrider)."""
    keys = (
        "plaintext",
        "imageOverrider",
        "commandOverrider",
        "argsOverrider",
        "labelsOverrider",
        "annotationsOverrider",
    )
    return any(overriders.get(k) for k in keys)


def _items(
    overriders: Mapping[str, Any], key: str, path: str
) -> Iterator[tuple[str, Mapping[str, Any]]]:
    entries = overriders.get(key)
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        yield f"{path}.{key}[{index}]", entry if isinstance(entry, Mapping) else {}


def _enum(
    entry: Mapping[str, Any], field: str, allowed: tuple[str, ...], path: str
) -> Iterator[Refusal]:
    value = entry.get(field)
    if value not in allowed:
        what = "is required" if value is None else f"{value!r} is not one of {', '.join(allowed)}"
        yield (f"{path}.{field}", f"{field} {what} (CRD)")


def _required(entry: Mapping[str, Any], field: str, path: str) -> Iterator[Refusal]:
    if entry.get(field) is None:
        yield (f"{path}.{field}", f"{field} is required (CRD)")


def _schema(overriders: Mapping[str, Any], path: str) -> Iterator[Refusal]:
    """The CRD's required fields and enums of every overrider."""
    for where, entry in _items(overriders, "plaintext", path):
        yield from _required(entry, "path", where)
        yield from _enum(entry, "operator", _OPERATORS, where)
    for where, entry in _items(overriders, "imageOverrider", path):
        yield from _enum(entry, "component", _COMPONENTS, where)
        yield from _enum(entry, "operator", _OPERATORS, where)
        predicate = entry.get("predicate")
        if isinstance(predicate, Mapping):
            yield from _required(predicate, "path", f"{where}.predicate")
    for key in ("commandOverrider", "argsOverrider"):
        for where, entry in _items(overriders, key, path):
            yield from _required(entry, "containerName", where)
            yield from _enum(entry, "operator", ("add", "remove"), where)
    for key in ("labelsOverrider", "annotationsOverrider"):
        for where, entry in _items(overriders, key, path):
            yield from _enum(entry, "operator", _OPERATORS, where)
            yield from _required(entry, "value", where)
    for where, entry in _items(overriders, "fieldOverrider", path):
        yield from _required(entry, "fieldPath", where)
        for form in ("json", "yaml"):
            operations = entry.get(form)
            for index, operation in enumerate(operations if isinstance(operations, list) else []):
                item = operation if isinstance(operation, Mapping) else {}
                yield from _required(item, "subPath", f"{where}.{form}[{index}]")
                yield from _enum(item, "operator", _OPERATORS, f"{where}.{form}[{index}]")


def _pointer(value: Any) -> bool:
    """``jsonpointer.New`` (go-openapi): empty, or starting with ``/``."""
    return isinstance(value, str) and (value == "" or value.startswith("/"))


def _webhook(overriders: Mapping[str, Any], path: str) -> Iterator[Refusal]:
    """``ValidateOverrideRules`` for one rule's overriders."""
    for where, entry in _items(overriders, "annotationsOverrider", path):
        yield from _annotations(entry.get("value"), f"{where}.value")
    for where, entry in _items(overriders, "labelsOverrider", path):
        yield from _labels(entry.get("value"), f"{where}.value")
    for where, entry in _items(overriders, "imageOverrider", path):
        predicate = entry.get("predicate")
        if isinstance(predicate, Mapping) and not _pointer(predicate.get("path", "")):
            yield (f"{where}.predicate.path", "not a JSON pointer (it must start with '/')")
    for where, entry in _items(overriders, "fieldOverrider", path):
        forms = [bool(entry.get("json")), bool(entry.get("yaml"))]
        if all(forms):
            yield (where, "FieldOverrider has both YAML and JSON set. Only one is allowed")
        if not any(forms):
            yield (where, "FieldOverrider must have either JSON or YAML set")
        if not _pointer(entry.get("fieldPath", "")):
            yield (f"{where}.fieldPath", "not a JSON pointer (it must start with '/')")
        for form in ("json", "yaml"):
            operations = entry.get(form)
            for index, operation in enumerate(operations if isinstance(operations, list) else []):
                item = operation if isinstance(operation, Mapping) else {}
                at = f"{where}.{form}[{index}]"
                if not _pointer(item.get("subPath", "")):
                    yield (f"{at}.subPath", "not a JSON pointer (it must start with '/')")
                has_value = item.get("value") is not None
                if item.get("operator") in ("add", "replace") and not has_value:
                    yield (f"{at}.value", "value is required for add or replace operation")
                if item.get("operator") == "remove" and has_value:
                    yield (f"{at}.value", "value is not allowed for remove operation")


def _labels(value: Any, path: str) -> Iterator[Refusal]:
    """``metav1validation.ValidateLabels``: qualified-name keys, label values."""
    for key, item in value.items() if isinstance(value, Mapping) else ():
        problem = label_key_problem(str(key)) or (
            label_value_problem(item) if isinstance(item, str) else f"{item!r} is not a string"
        )
        if problem:
            yield (path, f"invalid label: {problem}")


def _annotations(value: Any, path: str) -> Iterator[Refusal]:
    """``apivalidation.ValidateAnnotations``: lower-cased qualified-name keys, 256 KiB in all."""
    total = 0
    for key, item in value.items() if isinstance(value, Mapping) else ():
        problem = label_key_problem(str(key).lower())
        if problem:
            yield (path, f"invalid annotation key: {problem}")
        total += len(str(key)) + len(str(item))
    if total > _ANNOTATIONS_TOTAL:
        yield (path, "annotations may not exceed 256 KiB in total")


__all__ = ["Refusal", "refusals"]

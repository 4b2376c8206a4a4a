"""What the rules about a write's targets share: the templates a policy selects in the index of
the synced tree, and the words for a target the index does not know (or no index at all)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from webhook.base.values import NotJson, fields_key, is_mapping
from webhook.bundle.index import Key, TreeIndex, group_of
from webhook.bundle.rules import Rule
from webhook.engine.context import Review, no_index_reason
from webhook.engine.decision import Violation
from webhook.karmada.detector import selectors
from webhook.karmada.selector import ImplicitPriority, selectors_priority

TRUSTED = ("git", "platform")
"""The writers of the tree and of the platform: what they name is judged on what they write."""


def trusted_writer(review: Review) -> bool:
    return review.identity.writer in TRUSTED


def show_key(key: Key) -> str:
    _, kind, namespace, name = key
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def no_index(review: Review, rule: Rule, what: str) -> Violation:
    return review.violation(
        rule,
        f"{no_index_reason(review)}, so {what} cannot be judged against what is known of its "
        "targets: change it in Git, or have the platform team publish the index (fedgate "
        "bundle) or restore the webhook's watch of the Karmada API server",
    )


def unknown_target(review: Review, rule: Rule, key: Key, pointer: str) -> Violation:
    return review.violation(
        rule,
        f"{show_key(key)} is not in the index of the synced tree (the webhook's bundle, as of "
        "the last `fedgate bundle`), so what this write does to it cannot be judged: change "
        "it in Git, or ask the platform team to publish the index once it is there",
        pointer=pointer,
    )


def selected_templates(index: TreeIndex, policy: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The index's templates the policy's resourceSelectors match (every template of its scope
    when it has none, as Karmada reads an override without selectors): worked out once per
    index for each scope and selectors (``selection_key``), the templates read, never
    changed."""
    key = selection_key(policy)
    if key is None:
        return scan_templates(index, policy)
    found: tuple[Mapping[str, Any], ...] = index.memo(
        "selected-templates",
        key,
        lambda: tuple(scan_templates(index, policy)),
        lambda templates: REFERENCE_BYTES * len(templates),
    )
    return list(found)


REFERENCE_BYTES = 8
"""What a memo is charged for each template it refers to (the index owns the template)."""


SELECTOR_FIELDS = ("apiVersion", "kind", "namespace", "name", "labelSelector")
"""All that ``selector_priority`` reads of a resource selector."""


def selection_key(policy: Mapping[str, Any]) -> Any:
    """What ``scan_templates`` reads of ``policy`` as a hashable key: its scope, whether it
    has selectors at all (none selects everything), and of each selector that is a dict the
    fields it reads (the others match nothing), or all its members when they are strings;
    None when a selector holds a value that is not JSON (the scan then answers alone)."""
    kind = policy.get("kind")
    cluster_wide = isinstance(kind, str) and kind.startswith("Cluster")
    namespace = None if cluster_wide else namespace_of(policy)
    found = selectors(policy)
    key: list[Any] = [namespace, bool(found)]
    try:
        for selector in found:
            if type(selector) is not dict:
                continue
            if _STRINGS.issuperset(map(type, selector.values())):
                # strings alone (a selector by name): its members, no call per field; what
                # else such a selector holds is read by no one, and only narrows the key
                key.append(("items", *selector.items()))
            else:
                key.append(("fields", *fields_key(selector, SELECTOR_FIELDS)))
    except (NotJson, RecursionError):
        return None
    return tuple(key)


_STRINGS = frozenset({str})


def scan_templates(index: TreeIndex, policy: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """``selected_templates`` the slow way: every template of the scope against every
    selector."""
    kind = policy.get("kind")
    cluster_wide = isinstance(kind, str) and kind.startswith("Cluster")
    namespace = None if cluster_wide else namespace_of(policy)
    found = selectors(policy)
    templates = index.templates(namespace)
    if not found:
        return list(templates)
    return [t for t in templates if selectors_priority(t, found) > ImplicitPriority.MISMATCH]


def namespace_of(obj: Mapping[str, Any]) -> str:
    metadata = obj.get("metadata")
    value = metadata.get("namespace") if is_mapping(metadata) else None
    return value if isinstance(value, str) else ""


def named_unknown(index: TreeIndex, policy: Mapping[str, Any]) -> Iterator[tuple[Key, str]]:
    """(key, pointer) of each selector that names an object the index does not hold."""
    for i, selector in enumerate(selectors(policy)):
        if not is_mapping(selector) or not isinstance(selector.get("name"), str):
            continue
        namespace = selector.get("namespace") or namespace_of(policy)
        key = (
            group_of(str(selector.get("apiVersion", ""))),
            str(selector.get("kind", "")),
            str(namespace),
            selector["name"],
        )
        if index.get(key) is None:
            yield key, f"/spec/resourceSelectors/{i}"


def spec_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if is_mapping(spec) else {}


def unnamed(policy: Mapping[str, Any]) -> Iterator[tuple[int, Mapping[str, Any]]]:
    for i, selector in enumerate(selectors(policy)):
        if is_mapping(selector) and not selector.get("name"):
            yield i, selector


def unnamed_selectors(policy: Mapping[str, Any]) -> Iterator[int]:
    """The positions of the resource selectors that name no object (they select by label or
    by kind alone, so they also reach objects written later)."""
    yield from (i for i, _ in unnamed(policy))


def same_selection(review: Review) -> bool:
    """An UPDATE that keeps the selectors and the preemption (Karmada adding its finalizer, a
    placement change) chooses nothing new to select: judged when they were written."""
    old, new = review.request.old_object, review.request.object
    if review.request.operation != "UPDATE" or not is_mapping(old) or not is_mapping(new):
        return False
    return all(
        spec_of(old).get(k) == spec_of(new).get(k) for k in ("resourceSelectors", "preemption")
    )

"""``tenancy.selector-reach``: a tenant's selector without a name must require a label, and
may match none of Git's templates.
"""

from __future__ import annotations

from collections.abc import Iterator

from webhook.base.values import is_mapping
from webhook.bundle.index import key_of
from webhook.bundle.rules import Rule
from webhook.engine.context import Review, cross_index
from webhook.engine.decision import Violation
from webhook.engine.targets.selection import (
    namespace_of,
    no_index,
    same_selection,
    show_key,
    trusted_writer,
)
from webhook.karmada.detector import selectors
from webhook.karmada.selector import ImplicitPriority, requires_a_label, selector_priority


def check_selector_reach(review: Review, rule: Rule) -> Iterator[Violation]:
    """A tenant's PropagationPolicy selects by what its selectors match, not how they read: a
    selector without a name reaches every object of its kind in the namespace that meets it,
    so it may match only objects the tenant owns, and Git's (the index) are not the tenant's."""
    policy = review.request.object
    if not is_mapping(policy) or trusted_writer(review) or same_selection(review):
        return
    namespace = namespace_of(policy)
    index = cross_index(review)
    for i, selector in enumerate(selectors(policy)):
        if not is_mapping(selector) or selector.get("name"):
            continue
        pointer = f"/spec/resourceSelectors/{i}"
        kind = str(selector.get("kind") or "object")
        if not requires_a_label(selector):
            yield review.violation(
                rule,
                f"resourceSelectors[{i}] requires no label, so it selects every {kind} in "
                f"namespace {namespace} that lacks one: those the platform team, Karmada or "
                "another writer put there, and any created later, which fedgate cannot see; "
                "name each object, or select by a label your objects carry (matchLabels, In "
                "or Exists)",
                pointer=pointer,
            )
            continue
        if index is None:
            yield no_index(review, rule, f"what resourceSelectors[{i}] matches")
            continue
        found = sorted(
            show_key(key_of(t))
            for t in index.templates(namespace)
            if selector_priority(t, selector) > ImplicitPriority.MISMATCH
        )
        if found:
            shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
            yield review.violation(
                rule,
                f"resourceSelectors[{i}] matches {shown}, which Git manages (the index of the "
                "synced tree), not tenant "
                f"{review.identity.tenant or review.identity.describe()}: a policy written "
                "outside Git selects only its writer's objects; narrow its labels, or change "
                "the placement in Git",
                pointer=pointer,
            )

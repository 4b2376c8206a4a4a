"""``tenancy.takeover``: a policy may not select a template another policy propagates, and a
tenant's ``preemption: Always`` must name every object it may preempt.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from webhook.base.values import is_mapping
from webhook.bundle.index import TreeIndex, key_of
from webhook.bundle.rules import Rule
from webhook.engine.context import Review, cross_index
from webhook.engine.decision import Violation
from webhook.engine.targets.selection import (
    named_unknown,
    namespace_of,
    no_index,
    same_selection,
    selected_templates,
    show_key,
    spec_of,
    trusted_writer,
    unnamed_selectors,
)
from webhook.karmada.detector import Policies, explicit_priority, policy_ref


def check_takeover(review: Review, rule: Rule) -> Iterator[Violation]:
    policy = review.request.object
    index = cross_index(review)
    if not is_mapping(policy) or trusted_writer(review):
        return
    if index is None:
        yield no_index(review, rule, "which templates this policy would take")
        return
    own = policy_ref(policy)
    for template in selected_templates(index, policy):
        claim = Policies.of(index.policies(namespace_of(template))).claim(template)
        if claim.policy is None or policy_ref(claim.policy) == own:
            continue
        holder = policy_ref(claim.policy)
        preempts = spec_of(policy).get("preemption") == "Always"
        yield review.violation(
            rule,
            f"this policy selects {show_key(key_of(template))}, which {holder[0]} "
            f"{'/'.join(p for p in holder[1:] if p)}{_whence(index, claim.policy)} propagates"
            + (" (and it would preempt it)" if preempts else "")
            + ": one template, one policy; change the placement in Git",
            pointer="/spec/resourceSelectors",
        )
    yield from _named_git_data(review, rule, policy, index)
    yield from _preemption_reach(review, rule, policy)
    yield from _priority_reach(review, rule, policy, index)


def _whence(index: TreeIndex, obj: Mapping[str, Any]) -> str:
    """Where an indexed object comes from, for a message: Git, or (live index) not Git."""
    return " from Git" if index.ledgered(key_of(obj)) is not None else " (made outside Git)"


def _named_git_data(
    review: Review, rule: Rule, policy: Mapping[str, Any], index: TreeIndex
) -> Iterator[Violation]:
    """An object Git's policies select by name but Git does not hold (a Secret or ConfigMap
    made by hand beside Git's app) is Git's to place as much as a template is: a tenant's
    policy naming it would take it by priority (with preemption) or, at equal priority, by name
    order (Karmada's detector, ``webhook/karmada/detector.py``), and send it where Git's does
    not. Asked of Karmada's own claim, with the object as the selector names it."""
    own = policy_ref(policy)
    for key, pointer in named_unknown(index, policy):
        group, kind, namespace, name = key
        stub = {
            "apiVersion": f"{group}/v1" if group else "v1",
            "kind": kind,
            "metadata": {"name": name, "namespace": namespace},
        }
        claim = Policies.of(index.policies(namespace)).claim(stub)
        if claim.policy is None or policy_ref(claim.policy) == own:
            continue
        holder = policy_ref(claim.policy)
        yield review.violation(
            rule,
            f"this policy selects {show_key(key)}, which {holder[0]} "
            f"{'/'.join(p for p in holder[1:] if p)} from Git propagates by name: one object, "
            "one policy (Karmada would give it to the higher priority, or at equal priority to "
            "the first name); change the placement in Git",
            pointer=pointer,
        )


def _preemption_reach(review: Review, rule: Rule, policy: Mapping[str, Any]) -> Iterator[Violation]:
    """A tenant's ``preemption: Always`` takes over what its selectors match from any policy
    of lower priority; fedgate sees only Git's, so every selector must name its object."""
    if spec_of(policy).get("preemption") != "Always" or same_selection(review):
        return
    for i in unnamed_selectors(policy):
        yield review.violation(
            rule,
            f"preemption: Always with resourceSelectors[{i}], which names no object, would "
            "take over whatever it matches from the policy of another writer, including "
            "objects fedgate cannot see: name each object it may preempt, or drop preemption",
            pointer="/spec/preemption",
        )


def _priority_reach(
    review: Review, rule: Rule, policy: Mapping[str, Any], index: TreeIndex
) -> Iterator[Violation]:
    """Karmada gives a new template to the matching PropagationPolicy of the highest
    ``priority`` first, the name-over-label precedence only among equals: a tenant's label
    selector above Git's policies would take each template Git adds later with those labels,
    which no index of today shows. So a selector without a name stays at or below them."""
    if policy.get("kind") != "PropagationPolicy":
        return
    mine, old = explicit_priority(policy), review.request.old_object
    if is_mapping(old) and same_selection(review) and explicit_priority(old) >= mine:
        return
    namespace = namespace_of(policy)
    git = max(
        (
            explicit_priority(p)
            for p in index.policies(namespace)
            if p.get("kind") == "PropagationPolicy" and namespace_of(p) == namespace
        ),
        default=0,
    )
    if mine <= git:
        return
    for i in unnamed_selectors(policy):
        yield review.violation(
            rule,
            f"priority {mine} is above Git's policies in namespace {namespace} ({git}), and "
            f"resourceSelectors[{i}] names no object: it would take from Git's policies "
            "every template Git adds later with its labels; name each object, or keep "
            f"priority at most {git}",
            pointer="/spec/priority",
        )

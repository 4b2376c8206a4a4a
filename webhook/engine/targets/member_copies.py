"""``overrides.member-copies``: an override is judged by what it does. For every template it
selects, on every cluster the template goes to, the member's copy without the override and
with it (Karmada's path: ``webhook/karmada``) go through ``review`` as one UPDATE by the
override's writer, with the CEL variable ``cluster`` set: field ownership (a tenant may not
rewrite what Git owns; nobody may write what an autoscaler or Karmada owns), registries,
tags, requests and replica bounds hold on what the member will run.
Git's selector that names no template and matches none in the index is a finding, and the
override is judged on a stand-in carrying its labels; Git's cluster-wide override whose
label selector could match another tenant's templates than those it matches is denied.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from webhook.base.values import is_mapping
from webhook.bundle.index import Key, TreeIndex, group_of, key_of
from webhook.bundle.model import Cluster
from webhook.bundle.rules import Rule
from webhook.engine.baseline import copies_without
from webhook.engine.context import Review, cross_index
from webhook.engine.decision import Violation
from webhook.engine.synthesize import sync_request
from webhook.engine.targets.selection import (
    named_unknown,
    namespace_of,
    no_index,
    selected_templates,
    show_key,
    spec_of,
    trusted_writer,
    unknown_target,
    unnamed,
    unnamed_selectors,
)
from webhook.engine.workloads import POD_SPEC_AT, REPLICAS_AT, WORKLOAD_KINDS
from webhook.karmada.detector import Policies
from webhook.karmada.propagation import MemberCopy, copies_anywhere, propagate
from webhook.karmada.selector import ImplicitPriority, selector_priority


def check_override_effects(review: Review, rule: Rule) -> Iterator[Violation]:
    policy = review.request.object
    if not is_mapping(policy):
        return
    index = cross_index(review)
    trusted = trusted_writer(review)
    if index is None:
        if not trusted:
            yield no_index(review, rule, "what this override does")
        return
    if not trusted:
        yield from (unknown_target(review, rule, k, p) for k, p in named_unknown(index, policy))
        for i in unnamed_selectors(policy):
            yield review.violation(
                rule,
                "an override written outside Git must name each object it overrides: a "
                "selector without a name also reaches objects created later, which fedgate "
                "cannot see when they are written",
                pointer=f"/spec/resourceSelectors/{i}",
            )
    for target in selected_templates(index, policy):
        yield from _member_copy_violations(review, rule, index, policy, target)
    if trusted:  # a tenant's override on an unknown target is denied above
        for key, _ in named_unknown(index, policy):
            stand_in = _stand_in(review, key)
            if stand_in is not None:
                yield from _member_copy_violations(
                    review, rule, index, policy, stand_in, stand_in=True
                )
        yield from label_selected(review, rule)


def label_selected(review: Review, rule: Rule) -> Iterator[Violation]:
    """Git's (or the platform's) selectors without a name. One that matches no template of
    the index is a finding: it reaches only what is created later, so what the override
    writes is judged on a stand-in of the selector's kind carrying the selector's labels. A
    ClusterOverridePolicy's selector reaches every namespace it does not name: one that could
    match a tenant's template beyond the tenants whose templates it matches in Git is denied
    (it would rewrite what that tenant creates later, judged against nobody's scope).
    ``fedgate check``, whose bundle has no index, calls it with the checked tree's."""
    policy, index = review.request.object, review.bundle.index
    if not is_mapping(policy) or index is None:
        return
    cluster_wide = str(policy.get("kind", "")).startswith("Cluster")
    own = namespace_of(policy)
    bundle = review.bundle
    for i, selector in unnamed(policy):
        pointer = f"/spec/resourceSelectors/{i}"
        named = str(selector.get("namespace") or "")
        reach: list[str] | None  # the namespaces it reaches; None: every one
        if not cluster_wide and named and named != own:
            reach = []  # Karmada applies an OverridePolicy in its own namespace only
        elif named or not cluster_wide:
            reach = [named or own]
        else:
            reach = None
        candidates = index.templates(reach[0] if reach else None) if reach != [] else ()
        matched = [
            t for t in candidates if selector_priority(t, selector) > ImplicitPriority.MISMATCH
        ]
        if not matched:
            yield replace(
                review.violation(
                    rule,
                    f"resource selector {i} ({_describe_selector(selector)}) matches no template "
                    "in the synced tree (the index of Git): the override applies only to what "
                    "is created later with these labels, so what it writes is judged on a "
                    "stand-in of its kind; name the template, or remove the override",
                    pointer=pointer,
                ),
                action="warn",
                status="warn",
            )
            stand_in = _labelled_stand_in(review, selector, reach[0]) if reach else None
            if stand_in is not None:
                yield from _member_copy_violations(
                    review, rule, index, policy, stand_in, stand_in=True
                )
        if not cluster_wide or review.identity.writer != "git":  # the platform's own call
            continue
        theirs = {
            t.name
            for t in (bundle.tenant_of_namespace(namespace_of(m)) for m in matched)
            if t is not None
        }
        reached = (
            {t.name for n in reach if (t := bundle.tenant_of_namespace(n)) is not None}
            if reach is not None
            else set(bundle.tenants)
        )
        beyond = sorted(reached - theirs)
        if beyond:
            yield review.violation(
                rule,
                f"resource selector {i} ({_describe_selector(selector)}) of this cluster-wide "
                f"override could match templates of tenant {', '.join(beyond)}"
                + (
                    f", beyond the templates of {', '.join(sorted(theirs))} it matches in Git"
                    if theirs
                    else ", and matches none in Git"
                )
                + ": what such a tenant creates later with these labels would be rewritten; "
                "give the selector the namespace it is for, or name the template",
                pointer=pointer,
            )


def _describe_selector(selector: Mapping[str, Any]) -> str:
    kind = str(selector.get("kind", "")) or "any kind"
    labels = selector.get("labelSelector")
    if not is_mapping(labels) or not labels:
        return f"every {kind}"
    shown = [f"{k}={v}" for k, v in (labels.get("matchLabels") or {}).items()]
    shown += [
        f"{e.get('key')} {e.get('operator')} {e.get('values') or ''}".strip()
        for e in labels.get("matchExpressions") or ()
        if is_mapping(e)
    ]
    return f"{kind} labelled {', '.join(shown)}"


def _labelled_stand_in(
    review: Review, selector: Mapping[str, Any], namespace: str
) -> Mapping[str, Any] | None:
    """A stand-in (``_stand_in``) of the selector's kind carrying labels it matches: None when
    no such object can be made (a kind that runs no pods, labels no object can carry)."""
    group = group_of(str(selector.get("apiVersion", "")))
    kind = str(selector.get("kind", ""))
    stand_in = _stand_in(review, (group, kind, namespace, "label-selected"))
    if stand_in is None:
        return None
    labels: dict[str, str] = {}
    selector_labels = selector.get("labelSelector")
    if is_mapping(selector_labels):
        for key, value in (selector_labels.get("matchLabels") or {}).items():
            labels[str(key)] = str(value)
        for expression in selector_labels.get("matchExpressions") or ():
            if not is_mapping(expression):
                continue
            values = expression.get("values") or []
            if expression.get("operator") == "In" and values:
                labels[str(expression.get("key"))] = str(values[0])
            elif expression.get("operator") == "Exists":
                labels[str(expression.get("key"))] = "x"
    obj = {
        **stand_in,
        "apiVersion": selector.get("apiVersion"),
        "metadata": {**stand_in["metadata"], "labels": labels},
    }
    if selector_priority(obj, selector) <= ImplicitPriority.MISMATCH:
        return None
    return obj


def _stand_in(review: Review, key: Key) -> Mapping[str, Any] | None:
    """A template of the kind a selector names, for an override whose target Git does not
    hold: one container with an image of the namespace's tenant's first registry, small
    requests, one replica. What the override writes over it (a registry, a tag, replicas, a
    container) is the override's own doing, whatever the real target holds. None for kinds
    that run no pod template."""
    group, kind, namespace, name = key
    path = POD_SPEC_AT.get(kind)
    if path is None or (group, kind) not in WORKLOAD_KINDS:
        return None
    tenant = review.bundle.tenant_of_namespace(namespace)
    registry = tenant.registries[0] if tenant is not None and tenant.registries else "registry/"
    pod = {
        "containers": [
            {
                "name": "stand-in",
                "image": f"{registry.rstrip('/')}/stand-in:1.0",
                "resources": {"requests": {"cpu": "1m", "memory": "1Mi"}},
            }
        ]
    }
    obj: dict[str, Any] = {
        "apiVersion": f"{group}/v1" if group else "v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
    }
    holder = obj
    for step in path[:-1]:
        holder = holder.setdefault(step, {})
    holder[path[-1]] = pod
    if kind in REPLICAS_AT and REPLICAS_AT[kind] == ("spec", "replicas"):
        obj["spec"]["replicas"] = 1
    return obj


def _member_copy_violations(
    review: Review,
    rule: Rule,
    index: TreeIndex,
    policy: Mapping[str, Any],
    target: Mapping[str, Any],
    *,
    stand_in: bool = False,
) -> Iterator[Violation]:
    """The rules on every member's copy of ``target`` as the override changes it; a copy
    Karmada cannot build from a stand-in says nothing of the real target, so it is skipped."""
    own = key_of(policy)
    policies = index.policies(namespace_of(target))
    others = [p for p in policies if key_of(p) != own]
    without, with_it = Policies.of(others), Policies.of([*others, policy])
    clusters = review.bundle.clusters
    left_out = own if len(others) < len(policies) else None
    before = (
        propagate(target, without, clusters).copies  # the stand-in comes from the request
        if stand_in
        else copies_without(review.bundle, target, without, left_out)
    )
    after = propagate(target, with_it, clusters).copies
    elsewhere = {n: c for n, c in _could_run(review, target).items() if n not in after}
    if elsewhere:  # the override applies there the day the template goes there
        before = {**copies_anywhere(target, without, elsewhere), **before}
        after = {**copies_anywhere(target, with_it, elsewhere), **after}
    found: dict[tuple[str, str, str, str, str], tuple[Violation, list[str]]] = {}
    for cluster, copy_after in sorted(after.items()):
        copy_before = before.get(cluster)
        if stand_in and copy_after.object is None:
            continue
        for violation in _copy_violations(review, cluster, copy_before, copy_after):
            v = violation
            key = (v.rule, v.action, v.status, v.pointer, v.message)
            found.setdefault(key, (violation, []))[1].append(cluster)
    what = show_key(key_of(target)) + (
        " (not in the index: judged on a stand-in of its kind)" if stand_in else ""
    )
    pointer = "/spec/overrideRules" if spec_of(policy).get("overrideRules") else "/spec"
    here = rule.action_at(review.point)
    for violation, where in (found[k] for k in sorted(found)):
        at = f" at {violation.pointer}" if violation.pointer else ""
        yield replace(
            violation,
            pointer=pointer,
            owner=violation.owner,
            writer=review.identity.describe(),
            action=violation.action if here == "deny" else here,
            enforced=violation.enforced if here == "deny" else rule.staged_at(review.point),
            message=f"in {', '.join(where)}, {what} would get{at}: {violation.message}",
        )


def _could_run(review: Review, template: Mapping[str, Any]) -> Mapping[str, Cluster]:
    """The clusters ``template`` may ever be placed on: its tenant's (every cluster outside
    tenant namespaces)."""
    clusters = review.bundle.clusters
    tenant = review.bundle.tenant_of_namespace(namespace_of(template))
    if tenant is None:
        return clusters
    return {n: c for n, c in clusters.items() if n in tenant.clusters}


def _moved(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """How an override moved a copy (plaintext is a JSON patch of the whole object: Karmada's
    overridemanager applies ``/metadata/namespace`` as any other path); "" when it did not."""
    moves = []
    for field in ("namespace", "name"):
        was, now = (_metadata(o).get(field) for o in (before, after))
        if was != now:
            moves.append(f"from {field} {was!r} to {now!r}")
    return " and ".join(moves)


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    return metadata if is_mapping(metadata) else {}


def _refused(message: str) -> Violation:
    """A copy Karmada would not build, or must not: an error of the override itself."""
    return Violation(
        rule="karmada.override",
        owner="karmada",
        writer="karmada",
        action="deny",
        status="error",
        message=message,
    )


def _copy_violations(
    review: Review, cluster: str, before: MemberCopy | None, after: MemberCopy
) -> list[Violation]:
    if after.object is None:
        if before is not None and before.object is None:
            return []  # it failed already: not this override's doing
        return [_refused(f"Karmada cannot build the copy with this override: {after.error}")]
    if before is None or before.object is None or before.object == after.object:
        return []
    moved = _moved(before.object, after.object)
    if moved:
        return [
            _refused(
                f"the override moves the member's copy {moved}: Karmada's execution "
                "controller creates it where its own metadata says, outside the namespace "
                "(and the name) every rule judged, so the override may not change "
                "metadata.namespace or metadata.name"
            )
        ]
    if review.reviewer is None:
        raise RuntimeError("the member-copy review needs the context's reviewer (review.review)")
    request = review.request
    user = {"username": request.user.username, "groups": list(request.user.groups)}
    write = sync_request(after.object, before.object, review.bundle, user=user)
    decision = review.reviewer(
        write, review.bundle, cluster=cluster, point=review.point, today=review.today
    )
    review.lifted_inside.extend(decision.exceptions)  # the outer decision lists them too
    return list(decision.violations)

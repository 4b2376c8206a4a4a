"""Rules about the objects a write acts on, judged with what Git says of them.

An OverridePolicy, a FederatedHPA, a CronFederatedHPA or a PropagationPolicy changes what other
objects become in the member clusters. What those objects are, who owns their fields and which
policy manages them is read from the bundle's index of the synced tree (``bundle/index.py``),
never from the request: an object's own annotations are its writer's words.

- ``overrides.member-copies``: an override is judged by what it does. For every template it
  selects, on every cluster the template goes to, the member's copy without the override and
  with it (Karmada's path: ``webhook/karmada``) go through ``review`` as one UPDATE by the
  override's writer, with the CEL variable ``cluster`` set: field ownership (a tenant may not
  rewrite what Git owns; nobody may write what an autoscaler or Karmada owns), registries,
  tags, requests and replica bounds hold on what the member will run.
  Git's selector that names no template and matches none in the index is a finding, and the
  override is judged on a stand-in carrying its labels; Git's cluster-wide override whose
  label selector could match another tenant's templates than those it matches is denied.
- ``ownership.autoscaler-target``: an autoscaler may scale only what its target's ledger gives
  to it.
- ``tenancy.takeover``: a policy may not select a template another policy propagates, and a
  tenant's ``preemption: Always`` must name every object it may preempt.
- ``tenancy.selector-reach``: a tenant's selector without a name must require a label, and
  may match none of Git's templates.
- ``stateful-purge.targets``: a placement that fails a stateful template over (a StatefulSet, a
  PersistentVolumeClaim, a pod template mounting a claim, or one Git labels stateful) purges
  directly, whatever label the policy carries.

The index is Git as of the last bundle. Git and the platform team write the tree, so an object
they name that the index does not know is judged on what the request carries; a tenant's write
about an unknown object is denied with what to do instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from webhook.bundle.index import Key, TreeIndex, group_of, key_of
from webhook.bundle.model import Cluster
from webhook.bundle.rules import Rule
from webhook.engine.context import Review, cross_index, labels_of, ledger_of, no_index_reason
from webhook.engine.decision import Violation
from webhook.engine.synthesize import sync_request
from webhook.engine.workloads import POD_SPEC_AT, REPLICAS_AT, WORKLOAD_KINDS, pod_spec
from webhook.karmada.detector import Policies, explicit_priority, policy_ref, selectors
from webhook.karmada.propagation import MemberCopy, copies_anywhere, propagate
from webhook.karmada.selector import (
    ImplicitPriority,
    requires_a_label,
    selector_priority,
    selectors_priority,
)
from webhook.ledger import owner_of
from webhook.values import is_mapping

TRUSTED = ("git", "platform")
"""The writers of the tree and of the platform: what they name is judged on what they write."""
STATEFUL_LABEL = "fedgate.dev/stateful"
SCALERS = {
    "FederatedHPA": "federated-hpa",
    "CronFederatedHPA": "cron-federated-hpa",
    "HorizontalPodAutoscaler": "member-hpa",
}
"""The ledger owner each autoscaler kind acts as (no ledger names a CronFederatedHPA; a
HorizontalPodAutoscaler template becomes each member's HPA)."""


MEMBER_RETAINED = frozenset({("apps", "Deployment")})
"""The kinds whose replicas Karmada keeps as the member has them (with the retain-replicas
label): its default retention interpreter registers the replicas retention for Deployments
only (karmada v1.18.2 pkg/resourceinterpreter/default/native/retain.go). A member HPA on any
other kind fights Karmada, which writes the template's replicas back."""


def _trusted(review: Review) -> bool:
    return review.identity.writer in TRUSTED


def _show(key: Key) -> str:
    _, kind, namespace, name = key
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def _no_index(review: Review, rule: Rule, what: str) -> Violation:
    return review.violation(
        rule,
        f"{no_index_reason(review)}, so {what} cannot be judged against what is known of its "
        "targets: change it in Git, or have the platform team publish the index (fedgate "
        "bundle) or restore the webhook's watch of the Karmada API server",
    )


def _unknown(review: Review, rule: Rule, key: Key, pointer: str) -> Violation:
    return review.violation(
        rule,
        f"{_show(key)} is not in the index of the synced tree (the webhook's bundle, as of "
        "the last `fedgate bundle`), so what this write does to it cannot be judged: change "
        "it in Git, or ask the platform team to publish the index once it is there",
        pointer=pointer,
    )


def selected_templates(index: TreeIndex, policy: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The index's templates the policy's resourceSelectors match (every template of its scope
    when it has none, as Karmada reads an override without selectors)."""
    kind = policy.get("kind")
    cluster_wide = isinstance(kind, str) and kind.startswith("Cluster")
    namespace = None if cluster_wide else _namespace(policy)
    found = selectors(policy)
    templates = index.templates(namespace)
    if not found:
        return list(templates)
    return [t for t in templates if selectors_priority(t, found) > ImplicitPriority.MISMATCH]


def _namespace(obj: Mapping[str, Any]) -> str:
    metadata = obj.get("metadata")
    value = metadata.get("namespace") if is_mapping(metadata) else None
    return value if isinstance(value, str) else ""


def _named_unknown(index: TreeIndex, policy: Mapping[str, Any]) -> Iterator[tuple[Key, str]]:
    """(key, pointer) of each selector that names an object the index does not hold."""
    for i, selector in enumerate(selectors(policy)):
        if not is_mapping(selector) or not isinstance(selector.get("name"), str):
            continue
        namespace = selector.get("namespace") or _namespace(policy)
        key = (
            group_of(str(selector.get("apiVersion", ""))),
            str(selector.get("kind", "")),
            str(namespace),
            selector["name"],
        )
        if index.get(key) is None:
            yield key, f"/spec/resourceSelectors/{i}"


# ---------------------------------------------------------------- overrides.member-copies


def check_override_effects(review: Review, rule: Rule) -> Iterator[Violation]:
    policy = review.request.object
    if not is_mapping(policy):
        return
    index = cross_index(review)
    trusted = _trusted(review)
    if index is None:
        if not trusted:
            yield _no_index(review, rule, "what this override does")
        return
    if not trusted:
        yield from (_unknown(review, rule, k, p) for k, p in _named_unknown(index, policy))
        for i in _unnamed_selectors(policy):
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
        for key, _ in _named_unknown(index, policy):
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
    own = _namespace(policy)
    bundle = review.bundle
    for i, selector in _unnamed(policy):
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
            for t in (bundle.tenant_of_namespace(_namespace(m)) for m in matched)
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


def _unnamed(policy: Mapping[str, Any]) -> Iterator[tuple[int, Mapping[str, Any]]]:
    for i, selector in enumerate(selectors(policy)):
        if is_mapping(selector) and not selector.get("name"):
            yield i, selector


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
    others = [p for p in index.policies(_namespace(target)) if key_of(p) != own]
    without, with_it = Policies.of(others), Policies.of([*others, policy])
    clusters = review.bundle.clusters
    before = propagate(target, without, clusters).copies
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
    what = _show(key_of(target)) + (
        " (not in the index: judged on a stand-in of its kind)" if stand_in else ""
    )
    pointer = "/spec/overrideRules" if _spec(policy).get("overrideRules") else "/spec"
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
    tenant = review.bundle.tenant_of_namespace(_namespace(template))
    if tenant is None:
        return clusters
    return {n: c for n, c in clusters.items() if n in tenant.clusters}


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if is_mapping(spec) else {}


def _copy_violations(
    review: Review, cluster: str, before: MemberCopy | None, after: MemberCopy
) -> list[Violation]:
    if after.object is None:
        if before is not None and before.object is None:
            return []  # it failed already: not this override's doing
        return [
            Violation(
                rule="karmada.override",
                owner="karmada",
                writer="karmada",
                action="deny",
                status="error",
                message=f"Karmada cannot build the copy with this override: {after.error}",
            )
        ]
    if before is None or before.object is None or before.object == after.object:
        return []
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


# ---------------------------------------------------------------- ownership.autoscaler-target


def _scale_target(scaler: Mapping[str, Any], namespace: str) -> Key | None:
    """What an autoscaler scales, as an index key; None without a scaleTargetRef."""
    ref = _spec(scaler).get("scaleTargetRef")
    if not is_mapping(ref):
        return None
    return (
        group_of(str(ref.get("apiVersion", ""))),
        str(ref.get("kind", "")),
        namespace,
        str(ref.get("name", "")),
    )


def _git_scalers(index: TreeIndex, namespace: str) -> Mapping[Key, tuple[Key, ...]]:
    """Git's autoscalers of one namespace, by what they scale."""
    found: dict[Key, list[Key]] = {}
    for obj in index.templates(namespace):
        target = _scale_target(obj, namespace) if obj.get("kind") in SCALERS else None
        if target is not None:
            found.setdefault(target, []).append(key_of(obj))
    return {target: tuple(scalers) for target, scalers in found.items()}


def check_autoscaler_target(review: Review, rule: Rule) -> Iterator[Violation]:
    scaler = review.request.object
    if not is_mapping(scaler):
        return
    key = _scale_target(scaler, review.request.namespace)
    if key is None:
        return
    if scaler.get("kind") == "HorizontalPodAutoscaler" and key[:2] not in MEMBER_RETAINED:
        yield review.violation(
            rule,
            f"a member HorizontalPodAutoscaler would scale each member's {key[1]} {key[3]}, and "
            f"Karmada keeps the members' replicas only for a Deployment: it would write the "
            f"{key[1]}'s replicas back from the template, fighting the HPA; scale it with a "
            "FederatedHPA, or keep the replicas in Git",
            pointer="/spec/scaleTargetRef",
            owner="karmada",
        )
    index = cross_index(review)
    trusted = _trusted(review)
    if index is None:
        if not trusted:
            yield _no_index(review, rule, f"what this {scaler.get('kind')} scales")
        return
    target = index.get(key)
    if target is None:
        if not trusted:
            yield _unknown(review, rule, key, "/spec/scaleTargetRef")
        return
    namespace = review.request.namespace
    scalers = review.bundle.memo("git-scalers", namespace, lambda: _git_scalers(index, namespace))
    others = [k for k in scalers.get(key, ()) if k != key_of(scaler)]
    if others and not trusted:
        yield review.violation(
            rule,
            f"{_show(key)} is scaled by {', '.join(_show(k) for k in others)} from Git: one "
            "template, one autoscaler (a second one would fight it over the replicas); change "
            "the autoscaling in Git",
            pointer="/spec/scaleTargetRef",
        )
    acting = SCALERS.get(str(scaler.get("kind")), "")
    ledger = ledger_of(index.ledgered(key))  # Git's ledger, never a live object's words
    pointers = (
        ("/spec/minReplicas", "/spec/maxReplicas")
        if key[1] == "FederatedHPA"
        else ("/spec/replicas",)
    )
    for pointer in pointers:
        found = owner_of(pointer, ledger) if ledger is not None else ("git", "")
        owner = found[0] if found else "git"
        if owner != acting:
            yield review.violation(
                rule,
                f"this {scaler.get('kind')} would write {pointer} of {_show(key)}, which "
                f"Git's ledger gives to {owner}: two writers may not claim one field"
                + (
                    "; let an autoscaler own it with spec.autoscaling.owner in the app spec"
                    if owner == "git"
                    else ""
                ),
                pointer="/spec/scaleTargetRef",
                owner=owner,
            )


# ---------------------------------------------------------------- tenancy.takeover


def check_takeover(review: Review, rule: Rule) -> Iterator[Violation]:
    policy = review.request.object
    index = cross_index(review)
    if not is_mapping(policy) or _trusted(review):
        return
    if index is None:
        yield _no_index(review, rule, "which templates this policy would take")
        return
    own = policy_ref(policy)
    for template in selected_templates(index, policy):
        claim = Policies.of(index.policies(_namespace(template))).claim(template)
        if claim.policy is None or policy_ref(claim.policy) == own:
            continue
        holder = policy_ref(claim.policy)
        preempts = _spec(policy).get("preemption") == "Always"
        yield review.violation(
            rule,
            f"this policy selects {_show(key_of(template))}, which {holder[0]} "
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
    for key, pointer in _named_unknown(index, policy):
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
            f"this policy selects {_show(key)}, which {holder[0]} "
            f"{'/'.join(p for p in holder[1:] if p)} from Git propagates by name: one object, "
            "one policy (Karmada would give it to the higher priority, or at equal priority to "
            "the first name); change the placement in Git",
            pointer=pointer,
        )


def _same_selection(review: Review) -> bool:
    """An UPDATE that keeps the selectors and the preemption (Karmada adding its finalizer, a
    placement change) chooses nothing new to select: judged when they were written."""
    old, new = review.request.old_object, review.request.object
    if review.request.operation != "UPDATE" or not is_mapping(old) or not is_mapping(new):
        return False
    return all(_spec(old).get(k) == _spec(new).get(k) for k in ("resourceSelectors", "preemption"))


def _unnamed_selectors(policy: Mapping[str, Any]) -> Iterator[int]:
    """The positions of the resource selectors that name no object (they select by label or
    by kind alone, so they also reach objects written later)."""
    yield from (i for i, _ in _unnamed(policy))


def _preemption_reach(review: Review, rule: Rule, policy: Mapping[str, Any]) -> Iterator[Violation]:
    """A tenant's ``preemption: Always`` takes over what its selectors match from any policy
    of lower priority; fedgate sees only Git's, so every selector must name its object."""
    if _spec(policy).get("preemption") != "Always" or _same_selection(review):
        return
    for i in _unnamed_selectors(policy):
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
    if is_mapping(old) and _same_selection(review) and explicit_priority(old) >= mine:
        return
    namespace = _namespace(policy)
    git = max(
        (
            explicit_priority(p)
            for p in index.policies(namespace)
            if p.get("kind") == "PropagationPolicy" and _namespace(p) == namespace
        ),
        default=0,
    )
    if mine <= git:
        return
    for i in _unnamed_selectors(policy):
        yield review.violation(
            rule,
            f"priority {mine} is above Git's policies in namespace {namespace} ({git}), and "
            f"resourceSelectors[{i}] names no object: it would take from Git's policies "
            "every template Git adds later with its labels; name each object, or keep "
            f"priority at most {git}",
            pointer="/spec/priority",
        )


# ---------------------------------------------------------------- tenancy.selector-reach


def check_selector_reach(review: Review, rule: Rule) -> Iterator[Violation]:
    """A tenant's PropagationPolicy selects by what its selectors match, not how they read: a
    selector without a name reaches every object of its kind in the namespace that meets it,
    so it may match only objects the tenant owns, and Git's (the index) are not the tenant's."""
    policy = review.request.object
    if not is_mapping(policy) or _trusted(review) or _same_selection(review):
        return
    namespace = _namespace(policy)
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
            yield _no_index(review, rule, f"what resourceSelectors[{i}] matches")
            continue
        found = sorted(
            _show(key_of(t))
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


# ---------------------------------------------------------------- stateful-purge.targets


STATEFUL_KINDS = ("StatefulSet", "PersistentVolumeClaim")
DIRECT_PURGE = ("Directly", "Immediately")
"""The purgeModes that evict the old copy first: Immediately is Karmada v1.18's deprecated, still
served spelling of Directly (pkg/apis/policy/v1alpha1/propagation_types.go)."""


def stateful(obj: Mapping[str, Any]) -> bool:
    """Stateful by kind, by a pod template that mounts a claim, or by Git's label."""
    if obj.get("kind") in STATEFUL_KINDS:
        return True
    spec = pod_spec(obj)
    volumes = spec.get("volumes") if spec is not None else None
    if isinstance(volumes, list) and any(
        is_mapping(v) and v.get("persistentVolumeClaim") for v in volumes
    ):
        return True
    return str(labels_of(obj).get(STATEFUL_LABEL, "")).lower() == "true"


def _judged_by_cel(policy: Mapping[str, Any]) -> bool:
    """What the CEL rule stateful-purge sees in the policy itself: a stateful kind among its
    selectors, or the label."""
    return any(is_mapping(s) and s.get("kind") in STATEFUL_KINDS for s in selectors(policy)) or (
        labels_of(policy).get(STATEFUL_LABEL) == "true"
    )


FAILOVERS = ("application", "cluster")
"""The failover behaviours of a PropagationPolicy (Karmada v1.18 FailoverBehavior): each keeps
the old copy until the new one runs unless its purgeMode is Directly (Gracefully by default)."""


def check_stateful_targets(review: Review, rule: Rule) -> Iterator[Violation]:
    policy = review.request.object
    if not is_mapping(policy) or _judged_by_cel(policy):
        return  # the CEL rule stateful-purge judges what the policy says of itself
    failover = _spec(policy).get("failover")
    for behaviour in FAILOVERS:
        settings = failover.get(behaviour) if is_mapping(failover) else None
        if not is_mapping(settings):
            continue
        purge = settings.get("purgeMode", "Gracefully")
        if purge in DIRECT_PURGE:
            continue
        found = sorted(_show(key_of(t)) for t in _stateful_selected(cross_index(review), policy))
        if found:
            yield review.violation(
                rule,
                f"it fails over {', '.join(found)}, which is stateful, with purgeMode "
                f"{purge} (spec.failover.{behaviour}): two copies of a stateful app during a "
                "partition corrupt its data; use purgeMode Directly",
                pointer=f"/spec/failover/{behaviour}/purgeMode",
            )


def _stateful_selected(
    index: TreeIndex | None, policy: Mapping[str, Any]
) -> Sequence[Mapping[str, Any]]:
    if index is None:
        return ()
    return [t for t in selected_templates(index, policy) if stateful(t)]

"""Single-writer field ownership: every field of a managed object has one writer.

Built-in rules: ``ownership.field-owner`` (a write of a field owned by someone else),
``ownership.delete`` (DELETE of a managed object), ``ownership.scale`` (the scale subresource).

Who owns an object Git syncs is what the index of the synced tree says (``bundle/index.py``),
not the live object's annotation: a replace that drops the annotation, or a tenant creating
Git's name before Argo CD does, would otherwise make Git's object the writer's. The live
annotation (which only git and the platform team may write) decides for objects the index does
not hold yet. Karmada's claim fields are Karmada's on every object, managed or not: the
detector binds a template that carries them to the policy they name (karmada v1.18.2
pkg/detector/policy.go, propagateResource), so a writer who sets them picks the policy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import jsonpointer

from webhook.base.ledger import (
    ANNOTATION,
    ANNOTATION_POINTER,
    KARMADA_CLAIM_FIELDS,
    Ledger,
    entries_below,
    escape,
    ledger_problem,
    owner_of,
)
from webhook.base.values import same_json
from webhook.bundle.index import Key
from webhook.bundle.rules import Rule
from webhook.engine.context import (
    BROKEN_LEDGER,
    Review,
    annotations_of,
    labels_of,
    ledger_of,
    with_karmada_fields,
)
from webhook.engine.decision import Violation
from webhook.engine.untouched import Region, regions, untouched

UNOWNED = (
    "/metadata/resourceVersion",
    "/metadata/managedFields",
    "/metadata/generation",
    "/metadata/creationTimestamp",
    "/metadata/uid",
    "/metadata/selfLink",
    "/metadata/deletionTimestamp",
    "/metadata/deletionGracePeriodSeconds",
)
"""What no writer owns by design: the API server maintains these."""
_UNOWNED_BELOW = tuple(f"{p}/" for p in UNOWNED)

DELETERS = ("git", "platform")
REPAIRERS = ("git", "platform")
"""Who may change any field of a managed object whose ledger is broken (to repair it)."""


def _under(pointer: str, prefix: str) -> bool:
    return pointer == prefix or pointer.startswith(prefix + "/")


def changed_pointers(old: Any, new: Any) -> list[str]:
    """The JSON pointers an UPDATE changes: every added, removed or replaced value, as the
    paths of an RFC 6902 patch from old to new would name them (lists compared by index, so a
    shifted list names every index it shifts: more pointers, never fewer).

    Hand-written rather than jsonpatch.make_patch: that computes an optimal patch (moves,
    copies) and costs 0.4 ms of the webhook's budget per Deployment; only the paths matter here.
    Equal subtrees are skipped after two C-speed comparisons: Python's deep ``==``, which holds
    ``false == 0`` and ``1 == 1.0``, then their JSON, which does not, so a value whose JSON type
    changes is changed wherever it sits (JSON with the same members in another order is walked,
    and names no pointer). Objects are JSON (dicts and lists); any other mapping is compared as
    one value, so a change in it names its path (more, never fewer, pointers).
    """
    changed: list[str] = []
    # (before, after, the parent's pointer, the key below it): a pointer is only spelled out
    # for what differs, and types are tested exactly (an isinstance(Mapping) per node, and a
    # pointer per unchanged node, were most of the cost)
    stack: list[tuple[Any, Any, str, Any]] = [(old, new, "", None)]
    while stack:
        before, after, parent, key = stack.pop()
        if same_json(before, after):
            continue  # C-speed deep comparisons: most of an UPDATE is unchanged
        kind = type(before)
        if kind is type(after) and (kind is dict or kind is list):
            path = parent if key is None else f"{parent}/{escape(str(key))}"
            if kind is dict:
                for name, value in before.items():
                    if name in after:
                        stack.append((value, after[name], path, name))
                    else:
                        changed.append(f"{path}/{escape(str(name))}")
                changed.extend(
                    f"{path}/{escape(str(name))}" for name in after if name not in before
                )
            else:
                common = min(len(before), len(after))
                stack.extend((before[i], after[i], path, i) for i in range(common))
                longer = before if len(before) > common else after
                changed.extend(f"{path}/{i}" for i in range(common, len(longer)))
        else:
            changed.append(parent if key is None else f"{parent}/{escape(str(key))}")
    return sorted(changed)


def _resolve(obj: Mapping[str, Any], pointer: str) -> Any:
    try:
        return jsonpointer.resolve_pointer(obj, pointer, default=_MISSING)
    except jsonpointer.JsonPointerException:
        return _MISSING


_MISSING = object()


def owners_touched(
    pointer: str, ledger: Mapping[str, str], old: Mapping[str, Any], new: Mapping[str, Any]
) -> Iterator[tuple[str, str]]:
    """(owner, ledger pointer) of every owned field a change at ``pointer`` writes.

    The owner of ``pointer`` itself, and the owner of every ledger entry below it whose value
    the change alters (removing ``/metadata/labels`` writes Karmada's claim label too).
    """
    found = owner_of(pointer, ledger)
    if found is not None:
        yield found
    for owned, owner in entries_below(ledger, pointer):
        if _resolve(old, owned) != _resolve(new, owned):
            yield owner, owned


def may_write(review: Review, owner: str) -> bool:
    binding = review.bundle.owners.get(owner)
    identity = review.identity
    return binding is not None and binding.admits(identity.writer, identity.username)


def _owner_label(review: Review, owner: str) -> str:
    binding = review.bundle.owners.get(owner)
    who = binding.describe(review.bundle.writers) if binding else "no writer in the bundle"
    return f"{owner} ({who})"


def git_object(review: Review) -> Mapping[str, Any] | None:
    """The object the request names as the index of the synced tree holds it (Git's), None
    when the index does not hold it (or the bundle carries no index)."""
    index = review.bundle.index
    if index is None:
        return None
    request = review.request
    key: Key = (request.kind.group, request.kind.kind, request.namespace, request.name)
    return index.ledgered(key)


GIT_WHOLE = Ledger(with_karmada_fields({"": "git"}))
"""The ledger of an object the index holds without one (hand-written in Git): git's, but for
Karmada's fields."""


def _git_ledger(indexed: Mapping[str, Any]) -> tuple[str, Ledger]:
    """Git's ledger of an indexed object and a text that keys it (for the memo)."""
    text = annotations_of(indexed).get(ANNOTATION)
    ledger = ledger_of(indexed) if isinstance(text, str) else None
    if ledger is None or not isinstance(text, str):
        return "index:git", GIT_WHOLE
    return f"index:{text}", ledger


def check_field_owner(review: Review, rule: Rule) -> Iterator[Violation]:
    request = review.request
    old, new = request.old_object, request.object
    if request.operation == "CREATE" and new is not None:
        yield from _created(review, rule, new)
        return
    if request.operation != "UPDATE" or old is None or new is None:
        return
    indexed = git_object(review)
    if indexed is not None:
        if review.identity.writer in REPAIRERS and review.old_ledger is None:
            return  # the live ledger is broken or gone: git or the platform restores it
        key, git = _git_ledger(indexed)
        restores = indexed if may_write(review, git.get("", "git")) else None
        yield from _owned_changes(
            review, rule, key, git, request.sub_resource == "status", restores=restores
        )
        return
    text = annotations_of(old).get(ANNOTATION)
    if not isinstance(text, str):
        yield from _claims_set(review, rule, old, new)  # not managed: Karmada's fields only
        return
    ledger = review.old_ledger
    status_write = request.sub_resource == "status"
    if ledger is None:  # broken: repaired by git or the platform, Karmada keeps its fields
        if review.identity.writer in REPAIRERS:
            return
        yield from _broken_ledger_changes(review, rule, text, status_write)
        return
    yield from _owned_changes(review, rule, text, ledger, status_write)


def _owned_changes(
    review: Review,
    rule: Rule,
    text: str,
    ledger: Ledger,
    status_write: bool,
    *,
    restores: Mapping[str, Any] | None = None,
) -> Iterator[Violation]:
    """Every field the UPDATE changes that ``ledger`` gives to a writer other than this one.

    ``restores``: Git's object (the index), when Git's own writer writes it. A field Git
    renders but gives to another owner (a member-hpa app's retain label, which Karmada's
    hpaScaleTargetMarker removes when the HPA goes and adds back) may be set by Git to the
    value the index holds, never changed to another one or removed: Argo CD applies Git's
    manifest."""
    request = review.request
    old, new = request.old_object, request.object
    assert old is not None and new is not None
    if not status_write:
        found = _regions(review, text, ledger)
        if found is not None and untouched(found, old, new):
            return  # nothing the writer may not write has changed: no owner objects
    for shown, owner in foreign_changes(
        old,
        new,
        ledger,
        lambda owner: may_write(review, owner),
        status_write=status_write,
        handover=_handover(review, ledger),
    ):
        if restores is not None and _as_in_git(new, restores, shown):
            continue
        yield review.violation(
            rule,
            f"{shown} is owned by {_owner_label(review, owner)}; "
            f"{review.identity.describe()} may not change it",
            pointer=shown,
            owner=owner,
        )


def _as_in_git(new: Mapping[str, Any], git: Mapping[str, Any], pointer: str) -> bool:
    """Whether the write leaves ``pointer`` as Git's object holds it (present in both)."""
    value = _resolve(new, pointer)
    return value is not _MISSING and same_json(value, _resolve(git, pointer))


MINTED_BY_KARMADA = {
    "PropagationPolicy": KARMADA_CLAIM_FIELDS[0],
    "ClusterPropagationPolicy": KARMADA_CLAIM_FIELDS[1],
}
"""A policy's own permanent-id label: Karmada's mutating webhook sets it on every CREATE, over
whatever the writer sent (karmada v1.18.2 pkg/webhook/propagationpolicy/mutating.go), before
fedgate sees the request: the writer's request, Karmada's value."""


def _created(review: Review, rule: Rule, new: Mapping[str, Any]) -> Iterator[Violation]:
    """A CREATE writes every field it carries: of an object Git syncs (the index), all Git's
    (Argo CD's client-side apply keeps what it did not write, so a squatter's extra container
    would survive the sync); and, on any object, Karmada's claim fields."""
    indexed = git_object(review)
    who = review.identity.describe()
    if indexed is not None and review.identity.writer not in REPAIRERS:
        owner = _git_ledger(indexed)[1].get("") or "git"
        if not may_write(review, owner):
            request = review.request
            yield review.violation(
                rule,
                f"{request.kind.kind} {request.namespace}/{request.name} is in Git (the index "
                f"of the synced tree), owned by {_owner_label(review, owner)}; {who} may not "
                "create it (Argo CD does, from Git; creating it first would keep what the "
                "writer put in it): pick another name, or change it in Git",
                owner=owner,
            )
    yield from _claims_set(review, rule, {}, new)


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


CLAIM_KEYS = tuple(
    (owned, owned.split("/")[2], _unescape(owned.split("/")[3])) for owned in KARMADA_CLAIM_FIELDS
)
"""Karmada's claim fields as (pointer, metadata map, key): each a label or an annotation."""


def _claims_set(
    review: Review, rule: Rule, old: Mapping[str, Any], new: Mapping[str, Any]
) -> Iterator[Violation]:
    """Karmada's claim fields the write sets or changes, by a writer other than Karmada:
    Karmada's detector binds the template to the policy they name. Removing them is left to
    the ledger (on a managed object): Karmada claims the template again."""
    maps = {"labels": labels_of(new), "annotations": annotations_of(new)}
    if not (maps["labels"] or maps["annotations"]) or may_write(review, "karmada"):
        return
    before = {"labels": labels_of(old), "annotations": annotations_of(old)}
    minted = MINTED_BY_KARMADA.get(str(new.get("kind"))) if not old else None
    for owned, where, key in CLAIM_KEYS:
        if key not in maps[where] or owned == minted:
            continue
        had = key in before[where]
        if had and same_json(before[where][key], maps[where][key]):
            continue
        yield review.violation(
            rule,
            f"{owned} is Karmada's claim of a resource template (the detector binds the "
            "template to the policy it names); "
            f"{review.identity.describe()} may not {'change' if had else 'set'} it: "
            "leave it out, and let Karmada's detector pick the policy",
            pointer=owned,
            owner="karmada",
        )


def _broken_ledger_changes(
    review: Review, rule: Rule, text: str, status_write: bool
) -> Iterator[Violation]:
    """A managed object whose ledger cannot be read is git's but for Karmada's fields, so
    Karmada's controllers (claims, finalizers, status) keep working and every other writer is
    told who may repair it."""
    request = review.request
    assert request.old_object is not None and request.object is not None
    for shown, owner in foreign_changes(
        request.old_object,
        request.object,
        BROKEN_LEDGER,
        lambda owner: may_write(review, owner),
        status_write=status_write,
        handover=None,
    ):
        yield review.violation(
            rule,
            f"the ownership ledger {ANNOTATION} is broken ({ledger_problem(text)}), so "
            f"{shown} is read as owned by {_owner_label(review, owner)}; "
            f"{review.identity.describe()} may not change it (git or the platform team may "
            "repair the ledger)",
            pointer=shown,
            owner=owner,
        )


def pointers_in(old: Any, new: Any, *, status: bool) -> list[str]:
    """``changed_pointers(old, new)`` under ``/status`` (``status``) or outside it, in the same
    order, walking only that part of two objects: a write through the status subresource
    changes nothing else, and the rule on that subresource asks only what else changed, so
    neither walks the half of the object it does not judge."""
    if type(old) is not dict or type(new) is not dict:  # not JSON objects: the whole walk
        return [p for p in changed_pointers(old, new) if _under(p, "/status") == status]
    return changed_pointers(_part(old, status), _part(new, status))


def _part(obj: dict[str, Any], status: bool) -> dict[str, Any]:
    if status:
        return {"status": obj["status"]} if "status" in obj else {}
    return {k: v for k, v in obj.items() if k != "status"}


def foreign_changes(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    ledger: Mapping[str, str],
    may_write: Callable[[str], bool],
    *,
    status_write: bool,
    handover: Mapping[str, str] | None,
) -> Iterator[tuple[str, str]]:
    """(pointer, owner) for every owned field the write from ``old`` to ``new`` changes that
    the writer (``may_write(owner)``) may not write, each owner's field once; ``handover``: the
    new ledger when its owner hands fields over in this very write."""
    seen: set[tuple[str, str]] = set()
    # status is written through its subresource; the rest is ignored there
    for pointer in pointers_in(old, new, status=status_write):
        if pointer in UNOWNED or pointer.startswith(_UNOWNED_BELOW):
            continue
        if handover is not None and all(
            may_write(o) for o, _ in owners_touched(pointer, handover, old, new)
        ):
            continue  # the ledger's owner hands the field over in this very write
        for owner, owned in owners_touched(pointer, ledger, old, new):
            if (owner, owned) in seen or may_write(owner):
                continue
            seen.add((owner, owned))
            yield (pointer if owned == "" or _under(pointer, owned) else owned), owner


def _regions(review: Review, text: str, ledger: Mapping[str, str]) -> tuple[Region, ...] | None:
    """What this writer may not write in this ledger, outside the status subresource: the same
    for every write of the same object by the same user, so worked out once per bundle."""
    identity = review.identity
    return review.bundle.memo(
        "untouched-regions",
        (text, identity.writer, identity.username),
        lambda: regions(ledger, lambda owner: may_write(review, owner), (*UNOWNED, "/status")),
    )


def _handover(review: Review, ledger: Mapping[str, str]) -> Mapping[str, str] | None:
    """The new ledger, when this write changes the ledger and its writer owns the ledger.

    Ownership moves only through the ledger's owner (git: a reviewed change of the app spec,
    e.g. from member HPAs back to git): such a write may change the fields the new ledger gives
    to its writer. Karmada's fields never move (every ledger gives them to Karmada)."""
    new_ledger = review.new_ledger
    # the same text parses to the same Ledger (``context.ledger_of``'s memo): ``is`` first,
    # since ``==`` on a Mapping copies both into dicts, a Python call per entry
    if new_ledger is None or new_ledger is ledger or new_ledger == ledger:
        return None
    found = owner_of(ANNOTATION_POINTER, ledger)
    if found is None:
        return None
    return new_ledger if may_write(review, found[0]) else None


def check_delete(review: Review, rule: Rule) -> Iterator[Violation]:
    request = review.request
    if request.operation != "DELETE":
        return
    managed = isinstance(annotations_of(request.old_object).get(ANNOTATION), str)
    if not managed and git_object(review) is None:
        return  # not Git's (a broken ledger still is: git prunes it, the platform removes it)
    if review.identity.writer in DELETERS:
        return
    yield review.violation(
        rule,
        f"{request.kind.kind} {request.namespace}/{request.name} is managed from git; only git "
        f"(Argo CD pruning it) or the platform team may delete it, not "
        f"{review.identity.describe()}: remove it from the app specs instead",
        owner="git",
    )


SCALED_KINDS = {
    "deployments": "Deployment",
    "statefulsets": "StatefulSet",
    "replicasets": "ReplicaSet",
    "replicationcontrollers": "ReplicationController",
}
"""The kinds whose scale subresource fedgate is registered for, by the resource a Scale request
names (the request's kind is autoscaling/Scale whatever it scales)."""


def check_scale(review: Review, rule: Rule) -> Iterator[Violation]:
    request = review.request
    if request.sub_resource != "scale" or review.tenant is None:
        return
    if may_write(review, "federated-hpa") or review.identity.writer == "platform":
        return
    kind = SCALED_KINDS.get(request.resource, request.resource)
    yield review.violation(
        rule,
        f"scaling {request.resource}/{request.name} writes /spec/replicas, and the Scale request "
        f"does not carry the {kind}'s ownership ledger; in tenant namespaces only "
        f"{_owner_label(review, 'federated-hpa')} and the platform team may scale, not "
        f"{review.identity.describe()}: change replicas or autoscaling in the app spec",
        pointer="/spec/replicas",
        owner="federated-hpa",
    )


FEDGATE_PREFIX = "fedgate.dev/"
"""fedgate's annotations (the ledgers the rules read) carry this prefix."""
LEDGER_WRITERS = ("git", "platform")
"""Who may set, change or remove a fedgate annotation: git (what compile rendered) and the
platform team; break-glass is allowed with a warning, the control plane's controllers always."""


def _fedgate_annotations(obj: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in annotations_of(obj).items() if str(k).startswith(FEDGATE_PREFIX)}


def check_ledger_writer(review: Review, rule: Rule) -> Iterator[Violation]:
    """Only fedgate writes the ledger: a rule that read an annotation its writer may set would
    rest on the writer's word (a tenant's ``{"":"git"}``, or a ledger too big or deep to read)."""
    if review.identity.writer in LEDGER_WRITERS:
        return
    request = review.request
    new = _fedgate_annotations(request.object)
    old = _fedgate_annotations(request.old_object) if request.operation == "UPDATE" else {}
    for key in sorted(new.keys() | old.keys()):
        if key in new and key in old and same_json(new[key], old[key]):
            continue
        verb = "remove" if key not in new else ("change" if key in old else "set")
        yield review.violation(
            rule,
            f"{key} is written by fedgate compile (through git) and the platform team only; "
            f"{review.identity.describe()} may not {verb} it",
            pointer=f"/metadata/annotations/{escape(key)}",
            owner="git",
        )


def check_status_subresource(review: Review, rule: Rule) -> Iterator[Violation]:
    """A write through the status subresource changes /status and nothing else (the API server
    maintains resourceVersion, managedFields and the like)."""
    request = review.request
    old, new = request.old_object, request.object
    if request.sub_resource != "status" or old is None or new is None:
        return
    for pointer in pointers_in(old, new, status=False):
        if pointer in UNOWNED or pointer.startswith(_UNOWNED_BELOW):
            continue
        yield review.violation(
            rule,
            f"a write to the status subresource changes only /status; this one also changes "
            f"{pointer or 'the whole object'}",
            pointer=pointer,
        )


BINDING_WRITERS = ("karmada",)
"""Who writes ResourceBindings, ClusterResourceBindings and Works: Karmada's controllers."""


def check_karmada_bindings(review: Review, rule: Rule) -> Iterator[Violation]:
    """A binding or a Work is what Karmada derived from a template and its policy, and what
    the members apply: whoever writes one chooses what runs where, past every rule on the
    template and the policy. Only Karmada's controllers write them (break-glass with a warning,
    the control plane's garbage collector always)."""
    identity = review.identity
    if identity.writer in BINDING_WRITERS:
        return
    request = review.request
    yield review.violation(
        rule,
        f"{request.kind.kind} is written by Karmada's controllers from a resource template and "
        f"its policy; {identity.describe()} may not {request.operation.lower()} one: change the "
        "template or its PropagationPolicy instead",
        owner="karmada",
    )

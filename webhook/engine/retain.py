"""Retain rules: a member-owned field is retained by Karmada and never written from the federation.

Built-in rules: ``retain.replicas-label`` and ``retain.override-owned-field``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from webhook.base.ledger import TARGET_ANNOTATION, entries_below, escape, ledger_problem, owner_of
from webhook.base.values import is_mapping
from webhook.bundle.index import key_of
from webhook.bundle.rules import Rule
from webhook.engine.context import (
    BROKEN_LEDGER,
    Review,
    annotations_of,
    cross_index,
    labels_of,
    ledger_of,
)
from webhook.engine.decision import Violation
from webhook.engine.ownership import git_object, may_write
from webhook.engine.ownfields import only_label_changed
from webhook.engine.targets.selection import selected_templates
from webhook.karmada.overridemanager import overriders_at

RETAIN_LABEL = "resourcetemplate.karmada.io/retain-replicas"
RETAIN_POINTER = f"/metadata/labels/{escape(RETAIN_LABEL)}"
MEMBER_HPA = "member-hpa"
CONTAINERS = "/spec/template/spec/containers"


def check_replicas_label(review: Review, rule: Rule) -> Iterator[Violation]:
    request = review.request
    ledger = review.new_ledger
    if request.object is None or ledger is None:
        return
    found = owner_of("/spec/replicas", ledger)
    if found is None or found[0] != MEMBER_HPA:
        return
    if labels_of(request.object).get(RETAIN_LABEL) == "true":
        return
    had = labels_of(request.old_object).get(RETAIN_LABEL) == "true"
    if had and _writes_for_member_hpas(review):
        return  # Karmada's hpaScaleTargetMarker: the HPA is gone, and with it the label
    yield review.violation(
        rule,
        (f"removing {RETAIN_LABEL} is denied" if had else f'{RETAIN_LABEL}: "true" is missing')
        + ": member HPAs own /spec/replicas, and without the label Karmada would overwrite "
        "every member's replica count from the template",
        pointer=RETAIN_POINTER,
        owner=MEMBER_HPA,
    )


def _writes_for_member_hpas(review: Review) -> bool:
    """Whether the label is the member HPAs' in the object's ledger (Git's, in the index;
    else the live one, which only git and the platform write: never the request's) and this
    writer writes their fields on the federation (``writers.yaml`` ``ledgerOwners``: the
    controller-manager, whose hpaScaleTargetMarker removes the label from an HPA's target
    when the HPA is deleted, first of all in a namespace's deletion)."""
    indexed = git_object(review)
    ledger = ledger_of(indexed) if indexed is not None else review.old_ledger
    found = owner_of(RETAIN_POINTER, ledger) if ledger is not None else None
    return found is not None and found[0] == MEMBER_HPA and may_write(review, MEMBER_HPA)


MARKED = ("true", None)
"""What Karmada's hpaScaleTargetMarker leaves the label at: "true" while an HPA targets the
template (``util.RetainReplicasValue``, merged over any value), none once it is gone."""


def marks_scale_target(review: Review) -> bool:
    """Whether this is Karmada's hpaScaleTargetMarker's write (v1.18.2
    pkg/controllers/hpascaletargetmarker): an UPDATE that only sets the retain label to "true"
    or removes it, by a user ``writers.yaml`` ``ledgerOwners`` lets write the member HPAs'
    fields (never by what the request claims). It labels whatever an HPA targets, a template
    break-glass made by hand too, so it is judged on the label alone: judged whole, the
    contents every rule would object to would deny it, and the member HPAs and Karmada would
    fight over replicas."""
    request = review.request
    old, new = request.old_object, request.object
    if request.operation != "UPDATE" or request.sub_resource or old is None or new is None:
        return False
    before, after = labels_of(old).get(RETAIN_LABEL), labels_of(new).get(RETAIN_LABEL)
    if before == after or after not in MARKED or not may_write(review, MEMBER_HPA):
        return False
    return only_label_changed(old, new, RETAIN_LABEL)


def written_pointers(overriders: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(pointer written in the selected object, where in the overriders) for each overrider."""
    for i, op in enumerate(overriders.get("plaintext") or ()):
        if is_mapping(op) and isinstance(op.get("path"), str):
            yield op["path"], f"plaintext/{i}"
    for i, image in enumerate(overriders.get("imageOverrider") or ()):
        predicate = image.get("predicate") if is_mapping(image) else None
        path = predicate.get("path") if is_mapping(predicate) else None
        yield (path if isinstance(path, str) else CONTAINERS), f"imageOverrider/{i}"
    for name in ("commandOverrider", "argsOverrider"):
        for i, _ in enumerate(overriders.get(name) or ()):
            yield CONTAINERS, f"{name}/{i}"
    for name, field in (("labelsOverrider", "labels"), ("annotationsOverrider", "annotations")):
        for i, op in enumerate(overriders.get(name) or ()):
            value = op.get("value") if is_mapping(op) else None
            keys = value if is_mapping(value) else {}
            for key in keys:
                yield f"/metadata/{field}/{escape(str(key))}", f"{name}/{i}"
    for i, op in enumerate(overriders.get("fieldOverrider") or ()):
        if is_mapping(op) and isinstance(op.get("fieldPath"), str):
            yield op["fieldPath"], f"fieldOverrider/{i}"


def _owners_written(pointer: str, ledger: Mapping[str, str]) -> set[str]:
    """The owners of ``pointer`` and of every ledger entry below it."""
    found = owner_of(pointer, ledger)
    below = {owner for _, owner in entries_below(ledger, pointer)}
    return below | ({found[0]} if found else set())


def _target_ledgers(review: Review) -> list[tuple[str, Mapping[str, str]]] | None:
    """(whose, ledger) of each template the override selects in the index of the synced tree:
    what Git says, whatever the override's annotations say; None without an index."""
    index = cross_index(review)
    obj = review.request.object
    if index is None or not is_mapping(obj):
        return None
    found: list[tuple[str, Mapping[str, str]]] = []
    for template in selected_templates(index, obj):
        git = index.ledgered(key_of(template))
        if git is None:
            continue  # not Git's (created by hand): no ledger the index vouches for
        ledger = ledger_of(git)
        metadata = template.get("metadata") or {}
        whose = f"{template.get('kind')} {metadata.get('namespace')}/{metadata.get('name')}"
        found.append((whose, ledger if ledger is not None else BROKEN_LEDGER))
    return found


def check_override_owned_field(review: Review, rule: Rule) -> Iterator[Violation]:
    obj = review.request.object
    spec = (obj or {}).get("spec")
    indexed = _target_ledgers(review)
    if indexed:
        if is_mapping(spec):
            for whose, ledger in indexed:
                yield from _owned_writes(review, rule, spec, ledger, f"{whose}, which Git's ledger")
        return
    target = ledger_of(obj, TARGET_ANNOTATION)
    if target is None:
        text = annotations_of(obj).get(TARGET_ANNOTATION)
        if isinstance(text, str):  # present but unreadable: the override cannot be judged
            yield review.violation(
                rule,
                f"{TARGET_ANNOTATION} is not an ownership ledger ({ledger_problem(text)}), so "
                "what this override writes cannot be checked against the selected object",
                pointer="/metadata/annotations/" + escape(TARGET_ANNOTATION),
            )
        return
    if not is_mapping(spec):
        return
    yield from _owned_writes(review, rule, spec, target, "the selected object, which its ledger")


def _owned_writes(
    review: Review, rule: Rule, spec: Mapping[str, Any], target: Mapping[str, str], whose: str
) -> Iterator[Violation]:
    """A violation for each overrider that writes a field ``target`` gives to anyone but git."""
    owners: dict[str, list[str]] = {}
    for base, overriders in overriders_at(spec):
        for pointer, where in written_pointers(overriders):
            if pointer not in owners:  # many overriders may write one pointer: look it up once
                owners[pointer] = sorted(_owners_written(pointer, target) - {"git"})
            for owner in owners[pointer]:
                yield review.violation(
                    rule,
                    f"this override writes {pointer} of {whose} gives to {owner}; two "
                    "writers may not claim one field"
                    + (
                        ": bound replicas with spec.autoscaling instead"
                        if pointer.startswith("/spec/replicas")
                        else ""
                    ),
                    pointer=f"{base}/{where}",
                    owner=owner,
                )

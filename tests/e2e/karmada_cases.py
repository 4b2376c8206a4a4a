"""Karmada's own e2e scenarios (tests/webhook/karmada/cases/e2e.yaml) made ready for one live
federation: each case isolated from the others so that many run at once, the cases grouped in
waves (the members' labels and fields each wave needs, and the cases that share a
CustomResourceDefinition one after another), and how a member's copy is held to the plan.

Pure: no process, no API server; tests/e2e/test_karmada_cases.py applies what this returns.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from jsonpointer import JsonPointer

from tests.webhook.karmada.tables import e2e_tables

SUITE_NAMESPACE = "karmadatest"
CLUSTER_POLICIES = {"ClusterPropagationPolicy", "ClusterOverridePolicy"}
POLICIES = CLUSTER_POLICIES | {"PropagationPolicy", "OverridePolicy"}
# A CRD's name is <plural>.<group>: it cannot take a suffix, so the cases that hold one run in
# waves of their own, one after another, as the suite's Its do.
UNRENAMED = {"CustomResourceDefinition"}
CLAIMS = ("propagationpolicy.karmada.io/name", "clusterpropagationpolicy.karmada.io/name")


@dataclass
class Case:
    """One It of e2e.yaml, its objects and expectations moved to names of its own."""

    index: int
    name: str
    row: dict[str, Any]
    namespace: str
    objects: list[dict[str, Any]]
    expect: dict[str, dict[str, Any]]
    renamed: dict[tuple[str, str], str] = field(default_factory=dict)
    """(kind, name) of each cluster-scoped object -> its name here."""

    @property
    def clusters(self) -> list[dict[str, Any]]:
        """The members as the case sets them (the suite's three, unlabelled, unless it says)."""
        listed = self.row.get("clusters") or [{"name": n} for n in e2e_tables()["clusters"]]
        return [dict(entry) for entry in listed]

    @property
    def state(self) -> str:
        return json.dumps(self.clusters, sort_keys=True)

    @property
    def templates(self) -> list[dict[str, Any]]:
        return [o for o in self.objects if o["kind"] not in POLICIES]

    @property
    def crds(self) -> set[str]:
        return {o["metadata"]["name"] for o in self.objects if o["kind"] in UNRENAMED}

    @property
    def uses_crd_kind(self) -> bool:
        """A template of a kind only a CRD of another case defines (the suite's Foo)."""
        return any(o["apiVersion"].startswith("example-e2e.karmada.io/") for o in self.objects)


def _namespaced_kinds(objects: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(o["apiVersion"], o["kind"]) for o in objects if o["metadata"].get("namespace")}


def isolate(index: int, name: str, row: Mapping[str, Any]) -> Case:
    """The case with names no other case uses: its namespace ``e2e-cNN`` for the suite's
    karmadatest, ``-cNN`` after each cluster-scoped name (a CRD's excepted), the selectors and
    expectations that name them renamed alike, and each cluster-wide policy's selectors of a
    namespaced kind bound to the case's namespace (a ClusterOverridePolicy without selectors,
    which selects every resource, gets one per template of its tree). Within the case's own
    tree this selects what it selected before (every namespaced object of a case is in its one
    namespace), so `fedgate plan` of it and the e2e's expectations are unchanged."""
    tag = f"c{index:02d}"
    namespace = f"e2e-{tag}"
    objects = copy.deepcopy(list(row["objects"]))
    renamed: dict[tuple[str, str], str] = {}
    for obj in objects:
        meta = obj["metadata"]
        if meta.get("namespace"):
            meta["namespace"] = namespace
        elif obj["kind"] not in UNRENAMED:
            renamed[obj["kind"], meta["name"]] = meta["name"] = f"{meta['name']}-{tag}"
    namespaced = _namespaced_kinds(objects)
    templates = [o for o in objects if o["kind"] not in POLICIES]
    for obj in objects:
        if obj["kind"] not in POLICIES:
            continue
        spec = obj["spec"]
        if obj["kind"] == "ClusterOverridePolicy" and not spec.get("resourceSelectors"):
            spec["resourceSelectors"] = [_selector_of(t) for t in templates]
        for selector in spec.get("resourceSelectors", []):
            if selector.get("namespace") == SUITE_NAMESPACE:
                selector["namespace"] = namespace
            kind = (selector["apiVersion"], selector["kind"])
            if kind in namespaced:
                if obj["kind"] in CLUSTER_POLICIES and not selector.get("namespace"):
                    selector["namespace"] = namespace
            elif (selector["kind"], selector.get("name")) in renamed:
                selector["name"] = renamed[selector["kind"], selector["name"]]
    expect: dict[str, dict[str, Any]] = {}
    for key, wanted in row["expect"].items():
        kind, _, where = key.partition(" ")
        if where.startswith(f"{SUITE_NAMESPACE}/"):
            where = f"{namespace}/{where.partition('/')[2]}"
        else:
            where = renamed.get((kind, where), where)
        want = dict(wanted)
        claimed = ("ClusterPropagationPolicy", want.get("policy"))
        if claimed in renamed and not any(
            o["kind"] == "PropagationPolicy" and o["metadata"]["name"] == want["policy"]
            for o in objects
        ):
            want["policy"] = renamed[claimed]
        expect[f"{kind} {where}"] = want
    return Case(index, name, dict(row), namespace, objects, expect, renamed)


def _selector_of(template: Mapping[str, Any]) -> dict[str, Any]:
    selector = {"apiVersion": template["apiVersion"], "kind": template["kind"]}
    selector["name"] = template["metadata"]["name"]
    if template["metadata"].get("namespace"):
        selector["namespace"] = template["metadata"]["namespace"]
    return selector


def waves(cases: list[Case]) -> list[list[Case]]:
    """Cases that can be applied together. Each member state (labels, provider, region) is a
    wave of its own, the suite's unlabelled one first; a case holding a CRD another case of
    the wave holds goes to a later wave; a case making objects of the suite's CRD kind waits
    for a wave after one that propagated the CRD."""
    grouped: dict[str, list[Case]] = {}
    for case in cases:
        grouped.setdefault(case.state, []).append(case)
    ordered: list[list[Case]] = []
    for state in sorted(grouped, key=lambda s: (s != cases[0].state, s)):
        pending = grouped[state]
        while pending:
            defined = any(c.crds for wave in ordered for c in wave)
            wave, later, held = [], [], set()
            for case in pending:
                if case.crds & held or (case.uses_crd_kind and not defined):
                    later.append(case)
                else:
                    held |= case.crds
                    wave.append(case)
            ordered.append(wave or pending[:1])
            pending = later if wave else pending[1:]
    return ordered


# --- comparing a member's copy with the plan's ------------------------------------------------


def leaves(value: Any, parts: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    """(JSON pointer, value) of every scalar, empty list and empty map under ``value``."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from leaves(item, (*parts, str(key)))
    elif isinstance(value, list) and value:
        for position, item in enumerate(value):
            yield from leaves(item, (*parts, str(position)))
    else:
        yield JsonPointer.from_parts(list(parts)).path, value


_MISSING = object()


def at(obj: Any, pointer: str) -> Any:
    return JsonPointer(pointer).resolve(obj, _MISSING)


def missing(value: Any) -> bool:
    return value is _MISSING


def _empty(value: Any) -> bool:
    return value in ({}, [], None)


def copy_differences(planned: Mapping[str, Any], live: Mapping[str, Any]) -> list[str]:
    """Every leaf of the plan's member copy that the live copy does not hold as planned
    (the API server adds defaults and Karmada its bookkeeping marks: extra leaves are not
    differences; an empty map or list the plan keeps may be dropped by the API server)."""
    found = []
    for pointer, want in leaves(planned):
        have = at(live, pointer)
        if have is _MISSING and _empty(want):
            continue
        if have != want:
            found.append(
                f"{pointer}: live {'absent' if have is _MISSING else repr(have)}, plan {want!r}"
            )
    return found


def claim(template: Mapping[str, Any]) -> str | None:
    """The policy that claims a template, as the e2e reads it (its annotations)."""
    annotations = template.get("metadata", {}).get("annotations") or {}
    for key in CLAIMS:
        if key in annotations:
            return str(annotations[key])
    return None

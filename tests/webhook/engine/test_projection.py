"""The live index holds a projection of each object (``bundle/live.py: lean``): the decisions
it gives are those of the whole objects as the API server sends them.

Differential: every review input of ``examples/requests/`` and ``tests/attacks/``, judged with a
live index of the whole objects (Git's objects of the watched kinds and hand-made ones beside
them, each with generated ``managedFields``, kubectl's last-applied copy and a status, fields no
schema knows among it) and with the index of their projections, must be decided alike; and the
background audit of those objects finds the same. A reader of an index object that reads a field
the projection drops fails here: add the field to ``HELD``.

No unknown field at an object's top level: the API server prunes them for every watched kind
(built-in, or a Karmada CRD's structural schema), and an override that rewrites a template's
root (``tests/attacks/ledger-bomb-overridepolicy-create-by-tenant.json``) names the first field
it changes, which would be one of those (``docs/live-index.md``, what is held)."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import POLICIES
from tests.webhook.livecase import hand_made, policy
from webhook.bundle.index import group_of
from webhook.bundle.live import DROPPED_ANNOTATIONS, HELD, WATCHED, Watched, lean, live_index
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle
from webhook.engine.request import AdmissionRequest, parse_review
from webhook.engine.review import review
from webhook.scan import scan

ROOT = Path(__file__).resolve().parents[3]
LAST_APPLIED = DROPPED_ANNOTATIONS[0]
BY_KIND = {(w.group, w.kind): w for w in WATCHED}


def _requests() -> list[tuple[str, AdmissionRequest]]:
    files = sorted([*ROOT.glob("examples/requests/*.json"), *ROOT.glob("tests/attacks/*.json")])
    return [(f.name, parse_review(orjson.loads(f.read_bytes()))) for f in files]


REQUESTS = _requests()
GIT = load_bundle(POLICIES)


def _watched(obj: dict[str, Any]) -> Watched:
    return BY_KIND[(group_of(str(obj["apiVersion"])), str(obj["kind"]))]


def _names() -> list[str]:
    """The names the review inputs use: hand-made objects of these names are the ones their
    cross-object rules look up."""
    found = {"hand-made", "orders-db"}
    for _, request in REQUESTS:
        obj = request.object if isinstance(request.object, dict) else request.old_object
        if isinstance(obj, dict):
            found.add(str((obj.get("metadata") or {}).get("name") or "x"))
            for selector in (obj.get("spec") or {}).get("resourceSelectors") or []:
                if isinstance(selector, dict) and isinstance(selector.get("name"), str):
                    found.add(selector["name"])
    return sorted(found)


NAMES = _names()

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = st.recursive(
    st.just({}), lambda inner: st.dictionaries(st.from_regex(r"\A[fk]:[a-zA-Z.]{1,12}\Z"), inner)
)

CONDITION = st.dictionaries(
    st.sampled_from(["type", "status", "reason", "message", "lastTransitionTime"]), st.text()
)
COUNTER = st.integers(0, 2**31 - 1)
STATUS = st.fixed_dictionaries(
    {},
    optional={
        "observedGeneration": COUNTER,
        "replicas": COUNTER,
        "readyReplicas": COUNTER,
        "availableReplicas": COUNTER,
        "conditions": st.lists(CONDITION, max_size=3),
        "aggregatedStatus": st.lists(JSON, max_size=2),
    },
)
"""A status as the API server stores it: typed for the built-in kinds (Karmada's typed conversion
of a template reads its types, ``karmada/typed.py``; the API server never holds one that fails
it), anything beyond their counters and conditions for the others."""


@st.composite
def noises(draw: st.DrawFn) -> dict[str, Any]:
    """What the API server and other writers put on an object beside what the rules read."""
    return {
        "managedFields": draw(
            st.lists(
                st.fixed_dictionaries(
                    {
                        "manager": st.sampled_from(["argocd-controller", "kubectl", "karmada"]),
                        "operation": st.sampled_from(["Apply", "Update"]),
                        "fieldsType": st.just("FieldsV1"),
                        "fieldsV1": FIELDS,
                    }
                ),
                max_size=3,
            )
        ),
        "last_applied": draw(st.none() | st.just("self") | st.text(max_size=40)),
        "status": draw(st.none() | STATUS),
    }


def noisy(obj: dict[str, Any], noise: dict[str, Any]) -> dict[str, Any]:
    """``obj`` as the API server would send it, with ``noise`` on it."""
    made = copy.deepcopy(obj)
    metadata = made.setdefault("metadata", {})
    if noise["managedFields"]:
        metadata["managedFields"] = copy.deepcopy(noise["managedFields"])
    if noise["last_applied"] is not None:
        text = (
            orjson.dumps(obj).decode() if noise["last_applied"] == "self" else noise["last_applied"]
        )
        metadata["annotations"] = {**(metadata.get("annotations") or {}), LAST_APPLIED: text}
    if noise["status"] is not None:
        made["status"] = copy.deepcopy(noise["status"])
    return made


@st.composite
def federations(draw: st.DrawFn) -> list[dict[str, Any]]:
    """The API server's objects of the watched kinds: Git's and hand-made ones, each noisy."""
    assert GIT.index is not None
    git = [dict(o) for k, o in GIT.index.objects.items() if (k[0], k[1]) in BY_KIND]
    names = draw(st.lists(st.sampled_from(NAMES), max_size=4, unique=True))
    made: list[dict[str, Any]] = [hand_made(n) for n in names]
    made += [policy(f"by-hand-{n}", n) for n in draw(st.lists(st.sampled_from(NAMES), max_size=3))]
    noise = draw(st.lists(noises(), min_size=1, max_size=3))
    return [noisy(o, noise[i % len(noise)]) for i, o in enumerate([*git, *made])]


def _with(objects: list[dict[str, Any]]) -> Bundle:
    return replace(GIT, index=live_index(GIT.index, objects))


def test_the_projection_keeps_what_rules_read_and_drops_the_rest() -> None:
    obj = hand_made("web")
    obj["metadata"].update(
        uid="u-1",
        annotations={LAST_APPLIED: "{}", "fedgate.dev/ownership": '{"":"git"}'},
        managedFields=[{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}],
    )
    obj.update(status={"replicas": 3}, surprise={"a": 1})
    del obj["apiVersion"], obj["kind"]  # a list's items may lack them
    held = lean(copy.deepcopy(obj), WATCHED[0])
    assert sorted(held) == sorted(HELD)
    assert (held["apiVersion"], held["kind"]) == ("apps/v1", "Deployment")
    assert held["metadata"]["annotations"] == {"fedgate.dev/ownership": '{"":"git"}'}
    assert "managedFields" not in held["metadata"] and held["metadata"]["uid"] == "u-1"
    assert held["spec"] == obj["spec"] and held["metadata"]["labels"] == obj["metadata"]["labels"]


def test_short_strings_are_shared_between_objects() -> None:
    first, second = (
        lean(orjson.loads(orjson.dumps(hand_made("web"))), WATCHED[0]) for _ in range(2)
    )
    image = "registry.example.com/platform/demo-http:1.0"
    containers = [h["spec"]["template"]["spec"]["containers"][0] for h in (first, second)]
    assert containers[0]["image"] == image and containers[0]["image"] is containers[1]["image"]


@pytest.mark.parametrize(("name", "request_"), REQUESTS, ids=[n for n, _ in REQUESTS])
def test_each_review_input_is_decided_alike_on_the_projection(
    name: str, request_: AdmissionRequest
) -> None:
    """Git's objects and a hand-made pair, with every kind of noise: one example per input."""
    noise = {
        "managedFields": [{"manager": "kubectl", "operation": "Apply", "fieldsV1": {"f:spec": {}}}],
        "last_applied": "self",
        "status": {"replicas": 7, "conditions": [{"type": "Available", "status": "True"}]},
    }
    assert GIT.index is not None
    git = [dict(o) for k, o in GIT.index.objects.items() if (k[0], k[1]) in BY_KIND]
    whole = [noisy(o, noise) for o in [*git, hand_made("hand-made"), policy("p", "hand-made")]]
    held = [lean(copy.deepcopy(o), _watched(o)) for o in whole]
    assert review(request_, _with(whole)) == review(request_, _with(held)), name


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(federations())
def test_reviews_and_the_audit_are_alike_on_whole_objects_and_their_projections(
    whole: list[dict[str, Any]],
) -> None:
    held = [lean(copy.deepcopy(o), _watched(o)) for o in whole]
    full, projected = _with(whole), _with(held)
    for name, request_ in REQUESTS:
        assert review(request_, full) == review(request_, projected), name
    documents = [(f"object {i}", o) for i, o in enumerate(whole)]
    audited = [(f"object {i}", o) for i, o in enumerate(held)]
    assert scan(documents, projected) == scan(audited, projected)

"""Karmada's own code as the oracle, every run (github.com/karmada-io/karmada v1.18.2,
``karmada/``): the override manager (``ApplyOverridePolicies`` over a fake client holding the
policies and the member cluster), the image parser and ``ClusterMatches``.

5,000 override cases a run (random workloads and images, every overrider and operator, rules
targeting the cluster by name, labels and fields) and 5,000 image references, half with the
fixed seed and half with a fresh one (replay it with ``FEDGATE_ORACLE_SEED``). The port must
give Karmada's object and applied policies, or fail where Karmada fails (a workload of the
wrong field types included: the image overrider's typed conversion fails it).
"""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.oracles import karmadagen
from tests.oracles.build import ask, oracle
from tests.oracles.karmadagen import as_cluster
from tests.oracles.seeds import seeds
from tests.webhook.karmada.test_typed import ROWS as TYPED
from tests.webhook.karmada.test_typed import policy
from webhook.karmada.imageparser import ImageParseError, parse
from webhook.karmada.overridemanager import apply_overrides
from webhook.karmada.overriders import OverrideError
from webhook.karmada.selector import cluster_matches

pytestmark = pytest.mark.slow  # builds and runs a Go oracle

OVERRIDES = 2500
IMAGES = 2500
"""Cases per seed (two seeds a run)."""

Case = dict[str, Any]


def port_override(case: Case) -> Case:
    policies = case["policies"]
    try:
        applied = apply_overrides(
            copy.deepcopy(case["object"]),
            [p for p in policies if p["kind"] == "ClusterOverridePolicy"],
            [p for p in policies if p["kind"] == "OverridePolicy"],
            as_cluster(case["cluster"]),
        )
    except OverrideError:
        return {"error": True}
    # fedgate labels a policy "ClusterOverridePolicy NAME" / "OverridePolicy NS/NAME";
    # Karmada's AppliedOverrides hold the name
    names = {label.rpartition(" ")[2].rpartition("/")[2] for label in applied.applied}
    return {"object": applied.object, "applied": sorted(names)}


def karmada_override(answer: Case) -> Case:
    if "error" in answer or "panic" in answer:  # the controller recovers: nothing applied
        return {"error": True}
    return {"object": answer["object"], "applied": sorted(set(answer["applied"]))}


def port_image(text: str) -> Case:
    try:
        parts = parse(text)
    except ImageParseError:
        return {"error": True}
    return {
        "hostname": parts.hostname,
        "repository": parts.repository,
        "tag": parts.tag,
        "digest": parts.digest,
        "string": str(parts),
    }


def karmada_image(answer: Case) -> Case:
    return {"error": True} if "error" in answer else answer


@pytest.mark.parametrize("seed", seeds(), ids=["fixed-seed", "fresh-seed"])
def test_overrides_apply_as_karmada_applies_them(seed: int) -> None:
    rng = random.Random(seed)
    cases = [karmadagen.override_case(rng) for _ in range(OVERRIDES)]
    answers = ask(oracle("karmada"), cases)
    compared = [
        (c, karmada_override(a), port_override(c)) for c, a in zip(cases, answers, strict=True)
    ]
    wrong = [c for c in compared if c[1] != c[2]]
    failed = sum("error" in c[1] for c in compared)
    print(f"seed {seed}: Karmada fails {failed} of {OVERRIDES}")
    assert len(compared) == OVERRIDES
    assert sum("object" in c[1] and c[1]["applied"] != [] for c in compared) > OVERRIDES // 10
    assert not wrong, (
        f"seed {seed}: {len(wrong)} of {OVERRIDES} differ from Karmada, e.g. {wrong[:2]}"
    )


@pytest.mark.parametrize("seed", seeds(), ids=["fixed-seed", "fresh-seed"])
def test_images_parse_as_karmada_parses_them(seed: int) -> None:
    rng = random.Random(seed)
    texts = [karmadagen.image(rng) for _ in range(IMAGES)]
    answers = ask(oracle("karmada"), [{"op": "image", "image": t} for t in texts])
    compared = [(t, karmada_image(a), port_image(t)) for t, a in zip(texts, answers, strict=True)]
    wrong = [c for c in compared if c[1] != c[2]]
    assert len(compared) == IMAGES
    assert not wrong, f"seed {seed}: {len(wrong)} of {IMAGES} differ from Karmada, e.g. {wrong[:3]}"


@pytest.mark.parametrize("seed", seeds(), ids=["fixed-seed", "fresh-seed"])
def test_cluster_affinity_matches_as_karmada(seed: int) -> None:
    rng = random.Random(seed)
    cases = [
        {"op": "matches", "cluster": karmadagen.cluster(rng), "affinity": karmadagen.affinity(rng)}
        for _ in range(1000)
    ]
    answers = ask(oracle("karmada"), cases)
    wrong = [
        (c["cluster"], c["affinity"], a)
        for c, a in zip(cases, answers, strict=True)
        if a.get("match") != cluster_matches(as_cluster(c["cluster"]), c["affinity"])
    ]
    assert not wrong, f"seed {seed}: {len(wrong)} of 1000 differ from Karmada, e.g. {wrong[:3]}"


CASES = Path(__file__).resolve().parent.parent / "webhook" / "karmada" / "cases"


def _policy(obj: Case, overriders: Case) -> Case:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterOverridePolicy",
        "metadata": {"name": "recorded"},
        "spec": {
            "resourceSelectors": [{"apiVersion": obj["apiVersion"], "kind": obj["kind"]}],
            "overrideRules": [{"overriders": overriders}],
        },
    }


def _member() -> Case:
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": "member1"},
        "spec": {},
    }


def test_recorded_image_overrides_still_answer_as_karmada() -> None:
    """``cases/imageparser.yaml``'s ``overrides`` rows were recorded from Karmada v1.18.0's
    code by hand; each runs through v1.18.2's override manager on a Pod every run."""
    rows = yaml.safe_load((CASES / "imageparser.yaml").read_text(encoding="utf-8"))["overrides"]
    cases = []
    for row in rows:
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "n"},
            "spec": {"containers": [{"name": "c", "image": row["image"]}]},
        }
        item = {k: row[k] for k in ("component", "operator", "value")}
        cases.append(
            {
                "op": "override",
                "object": pod,
                "policies": [_policy(pod, {"imageOverrider": [item]})],
                "cluster": _member(),
            }
        )
    answers = ask(oracle("karmada"), cases)
    got = [
        a["object"]["spec"]["containers"][0]["image"] if "object" in a else "error" for a in answers
    ]
    want = ["error" if "error" in row else row["want"] for row in rows]
    assert len(rows) >= 20
    assert got == want


def test_recorded_field_overrides_still_answer_as_karmada() -> None:
    """``cases/fieldoverrider.yaml`` was recorded from Karmada v1.18.0's libraries by hand; each
    row runs through v1.18.2's override manager (a ConfigMap's ``data.doc``) every run."""
    rows = yaml.safe_load((CASES / "fieldoverrider.yaml").read_text(encoding="utf-8"))["cases"]
    cases = []
    for row in rows:
        config = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "c", "namespace": "n"},
            "data": {"doc": row["doc"]},
        }
        overrider = {"fieldPath": "/data/doc", row["mode"]: row["ops"]}
        cases.append(
            {
                "op": "override",
                "object": config,
                "policies": [_policy(config, {"fieldOverrider": [overrider]})],
                "cluster": _member(),
            }
        )
    answers = ask(oracle("karmada"), cases)
    differ = []
    for row, answer in zip(rows, answers, strict=True):
        got = answer["object"]["data"]["doc"] if "object" in answer else None
        if ("error" in row) != (got is None) or ("want" in row and got != row["want"]):
            differ.append((row["name"], row.get("want", row.get("error")), answer))
    assert len(rows) >= 30
    assert not differ, differ


def test_recorded_typed_conversions_still_answer_as_karmada() -> None:
    """``tests/webhook/karmada/test_typed.py``'s named workloads, each with an image
    overrider, through Karmada's override manager: the port's object or failure every run."""
    cases = [
        {"op": "override", "object": obj, "policies": [policy(obj)], "cluster": _member()}
        for obj, _ in TYPED.values()
    ]
    answers = ask(oracle("karmada"), cases)
    differ = [
        (name, answer)
        for name, case, answer in zip(TYPED, cases, answers, strict=True)
        if karmada_override(answer) != port_override(case)
    ]
    assert len(TYPED) >= 15
    assert not differ, differ

"""Scheduling questions as careless authors and attackers pose them, for the Karmada oracle's
``divide`` op (a seeded ``random.Random``): candidates with their room, a placement (every
replica scheduling type and division preference, static weights, dynamic weight, spread
constraints that can and cannot be met), the replicas and the binding's last result.

At most 12 candidates: above, Go's ``sort.Sort`` may reorder equal available replicas
(``webhook/karmada/assign.py`` says so)."""

from __future__ import annotations

import random
from typing import Any

NAMES = ["a", "b", "c", "A", "a-1", "a1", "member1", "member2", "member10", "z", "ü", "m.x", "q"]
REGIONS = ["us", "eu", "ap"]
HUGE = 2**31 - 1
"""int32's largest: the estimators answer replicas as int32."""

Case = dict[str, Any]


def _available(rng: random.Random) -> int:
    return rng.choice([0, 0, 1, 2, 3, 5, 10, rng.randint(0, 50), rng.randint(0, 1000), HUGE])


def replicas(rng: random.Random) -> int:
    return rng.choice([0, 1, 2, 3, 4, 5, 7, 10, rng.randint(1, 30), rng.randint(1, 300), 5000])


def _cluster(rng: random.Random, name: str) -> Case:
    spec: Case = {}
    if rng.random() < 0.85:
        spec["region"] = rng.choice(REGIONS)
    if rng.random() < 0.3:
        spec["zone"] = rng.choice(["z1", "z2"])
    if rng.random() < 0.3:
        spec["provider"] = rng.choice(["aws", "gcp"])
    labels = {"tier": rng.choice(["gold", "silver"])} if rng.random() < 0.6 else {}
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": name, "labels": labels},
        "spec": spec,
    }


def _weight(rng: random.Random) -> int:
    return rng.choice(
        [0, 1, 1, 2, 3, 5, 10, rng.randint(1, 100), 2**53, 2**53 + 1, 2**62, 2**62 + 1, 2**63 - 1]
    )


def _static(rng: random.Random, names: list[str]) -> list[Case]:
    entries = []
    for _ in range(rng.randint(0, 4)):
        if rng.random() < 0.6:
            pool = [*names, "gone"]
            target: Case = {"clusterNames": rng.sample(pool, rng.randint(0, min(3, len(pool))))}
        else:
            target = {"labelSelector": {"matchLabels": {"tier": rng.choice(["gold", "silver"])}}}
        entries.append({"targetCluster": target, "weight": _weight(rng)})
    return entries


def _scheduling(rng: random.Random, names: list[str]) -> Case | None:
    kind = rng.choice(["none", "Duplicated", "Divided", "Divided", "Divided", "Divided", ""])
    if kind == "none":
        return None
    made: Case = {"replicaSchedulingType": kind} if kind else {}
    preference = rng.choice(["Aggregated", "Weighted", "Weighted", ""])
    if preference:
        made["replicaDivisionPreference"] = preference
    if rng.random() < 0.7:
        weight: Case = {}
        if rng.random() < 0.6:
            weight["staticWeightList"] = _static(rng, names)
        if rng.random() < 0.5:
            weight["dynamicWeight"] = "AvailableReplicas"
        made["weightPreference"] = weight
    return made


def _spread(rng: random.Random) -> list[Case]:
    made = []
    fields = rng.sample(["region", "cluster", "zone", "provider", ""], rng.randint(1, 3))
    for by in fields:
        constraint: Case = {"spreadByField": by} if by else {"spreadByLabel": "tier"}
        if rng.random() < 0.8:
            constraint["minGroups"] = rng.choice([0, 1, 1, 2, 3, 5])
        if rng.random() < 0.8:
            constraint["maxGroups"] = rng.choice([0, 1, 2, 3, 4, 13])
        made.append(constraint)
    return made


def division_case(rng: random.Random) -> Case:
    names = rng.sample(NAMES, rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 8, 12]))
    count = replicas(rng)
    previous: list[Case] = []
    if rng.random() < 0.45:
        for name in rng.sample([*names, "gone"], rng.randint(0, len(names) + 1)):
            previous.append(
                {"name": name, "replicas": rng.choice([0, 1, 2, 3, rng.randint(0, 40)])}
            )
    scheduled = {p["name"] for p in previous}
    candidates = [
        {
            "cluster": _cluster(rng, name),
            "score": 100 if name in scheduled else (100 if rng.random() < 0.05 else 0),
            "available": _available(rng),
        }
        for name in names
    ]
    placement: Case = {}
    scheduling = _scheduling(rng, names)
    if scheduling is not None:
        placement["replicaScheduling"] = scheduling
    if rng.random() < 0.5:
        placement["spreadConstraints"] = _spread(rng)
    return {
        "op": "divide",
        "candidates": candidates,
        "replicas": count,
        "placement": placement,
        "previous": previous,
        "uid": rng.choice(["", "uid-0", "uid-1", "uid-2", f"{rng.getrandbits(128):032x}"]),
        "requirements": rng.random() < 0.3,
    }

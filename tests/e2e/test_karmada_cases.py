"""Karmada's own e2e scenarios (tests/webhook/karmada/cases/e2e.yaml: override, propagation,
affinity, field selector) applied to a live federation whose members are Karmada e2e's
member1..member3, and each held to (a) what Karmada's e2e asserts and (b) what
`fedgate plan --tree` predicts for the same tree.

The session federation's members (cluster-a..c, labelled) cannot stand for member1..3 (the
cases name them, and the suite's members carry no labels), so this module brings up its own,
per-component layout, from a bundle of the three unlabelled members (the bundle the plan reads
too), fedgate registered with it. The cases are isolated by name (karmada_cases.isolate) and
applied in waves (karmada_cases.waves): before each wave the members' labels and fields are set
as its cases say (as the suite updates the Cluster objects).
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from compiler.cli import main as fedgate
from tests.e2e import controlplane
from tests.e2e.conftest import Federation, running
from tests.e2e.karmada_cases import (
    POLICIES,
    Case,
    at,
    claim,
    copy_differences,
    isolate,
    missing,
    waves,
)
from tests.webhook.karmada.tables import Cluster as BundleCluster
from tests.webhook.karmada.tables import e2e_cases, template_key, write_bundle

pytestmark = pytest.mark.slow

CASES = [isolate(i, p.id or "", p.values[0]) for i, p in enumerate(e2e_cases())]  # type: ignore[arg-type]
WAVE_SECONDS = 180
# The API server's own fields of an object (a uid in the tree is not kept): not the plan's to say.
NOT_PLANNED = ("/metadata/uid", "/metadata/resourceVersion", "/metadata/creationTimestamp")


def _clusters(case: Case) -> dict[str, BundleCluster]:
    return {
        c["name"]: BundleCluster(
            c["name"], c.get("labels", {}), provider=c.get("provider"), region=c.get("region")
        )
        for c in case.clusters
    }


def plan_of(case: Case, work: Path) -> dict[str, dict[str, Any]]:
    """`fedgate plan --tree` of the case's (isolated) tree, with a bundle of its members."""
    folder = work / f"plan-{case.index:02d}"
    bundle = write_bundle(folder / "bundle", _clusters(case))
    tree = folder / "tree"
    tree.mkdir(parents=True, exist_ok=True)
    (tree / "objects.yaml").write_text(yaml.safe_dump_all(case.objects))
    out, err = io.StringIO(), io.StringIO()
    code = fedgate(
        ["plan", "--tree", str(tree), "--policies", str(bundle), "--output", "json"],
        stdout=out,
        stderr=err,
    )
    assert code in (0, 1), err.getvalue()
    return {template_key(t): t for t in json.loads(out.getvalue())["templates"]}


def _resource(api_version: str, kind: str) -> str:
    """kubectl's name of a kind's resource (``Kind`` -> ``kinds.group``, ``Policy`` ->
    ``policies``: the plurals of the cases' kinds)."""
    group = api_version.rpartition("/")[0]
    lower = kind.lower()
    plural = f"{lower[:-1]}ies" if lower.endswith("y") else f"{lower}s"
    return plural + (f".{group}" if group else "")


def _key(obj: dict[str, Any]) -> str:
    meta = obj["metadata"]
    namespace = meta.get("namespace")
    return f"{obj['kind']} {namespace + '/' if namespace else ''}{meta['name']}"


@dataclass
class Live:
    """What the federation holds of a wave's templates: each template, its binding and each
    member's copy (by ``Kind namespace/name``)."""

    templates: dict[str, dict[str, Any]] = field(default_factory=dict)
    bindings: dict[str, dict[str, Any]] = field(default_factory=dict)
    copies: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    works: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)


def _list(federation: Federation, resources: list[str], member: str | None = None) -> list[Any]:
    result = federation.kubectl("get", ",".join(resources), "-A", "-o", "json", member=member)
    if result.returncode != 0 and not result.stdout:
        return []
    return list(json.loads(result.stdout).get("items", [])) if result.stdout.strip() else []


def observe(federation: Federation, wave: list[Case]) -> Live:
    kinds = sorted({(t["apiVersion"], t["kind"]) for c in wave for t in c.templates})
    resources = [_resource(a, k) for a, k in kinds]
    wanted = {_key(t) for c in wave for t in c.templates}
    live = Live()
    control = _list(
        federation,
        [
            *resources,
            "resourcebindings.work.karmada.io",
            "clusterresourcebindings.work.karmada.io",
            "works.work.karmada.io",
        ],
    )
    for obj in control:
        if obj["kind"] in ("ResourceBinding", "ClusterResourceBinding"):
            ref = obj["spec"]["resource"]
            key = _key({"kind": ref["kind"], "metadata": ref})
            if key in wanted:
                live.bindings[key] = obj
        elif obj["kind"] == "Work":
            cluster = obj["metadata"]["namespace"].removeprefix("karmada-es-")
            for manifest in obj["spec"].get("workload", {}).get("manifests", []):
                if _key(manifest) in wanted:
                    live.works.setdefault(_key(manifest), {})[cluster] = obj
        elif _key(obj) in wanted:
            live.templates[_key(obj)] = obj
    for member in federation.members:
        for obj in _list(federation, resources, member=member):
            if _key(obj) in wanted:
                live.copies.setdefault(_key(obj), {})[member] = obj
    return live


def placement(live: Live, key: str) -> list[str]:
    """Where Karmada sends the template: its binding's clusters (a Namespace has no binding:
    the namespace controller sends it to every member, so where its copies are)."""
    if key.startswith("Namespace "):
        return sorted(live.copies.get(key, {}))
    binding = live.bindings.get(key)
    return sorted(c["name"] for c in (binding or {}).get("spec", {}).get("clusters", []))


def suspended(live: Live, key: str) -> list[str]:
    return sorted(
        cluster
        for cluster, work in live.works.get(key, {}).items()
        if work["spec"].get("suspendDispatching")
    )


def plan_differences(live: Live, key: str, planned: dict[str, Any]) -> list[str]:
    """How the federation differs from the plan of one template: placement, claim, suspended
    Works, propagateDeps, and every field of each planned member copy."""
    found = []
    want = sorted(planned["clusters"])
    if placement(live, key) != want:
        found.append(f"{key}: placed on {placement(live, key)}, plan {want}")
    policy = planned["policy"]["name"] if planned.get("policy") else None
    if claim(live.templates.get(key, {})) != policy:
        found.append(f"{key}: claimed by {claim(live.templates.get(key, {}))}, plan {policy}")
    if "suspendedDispatching" in planned and suspended(live, key) != sorted(
        planned["suspendedDispatching"]
    ):
        found.append(
            f"{key}: suspended on {suspended(live, key)}, plan {planned['suspendedDispatching']}"
        )
    binding = live.bindings.get(key)
    if binding and bool(binding["spec"].get("propagateDeps")) != bool(planned.get("propagateDeps")):
        found.append(f"{key}: propagateDeps {binding['spec'].get('propagateDeps')}, plan")
    dispatched = set(want) - set(planned.get("suspendedDispatching") or [])
    for cluster in sorted(dispatched):
        copy = live.copies.get(key, {}).get(cluster)
        if copy is None:
            found.append(f"{key}: no copy on {cluster}")
            continue
        for difference in copy_differences(planned["clusters"][cluster], copy):
            if not difference.startswith(NOT_PLANNED):
                found.append(f"{key} on {cluster}: {difference}")
    for cluster in sorted(set(live.copies.get(key, {})) - set(want)):
        found.append(f"{key}: a copy on {cluster}, not planned")
    return found


def e2e_differences(live: Live, case: Case) -> list[str]:
    """What Karmada's e2e asserts of the case (e2e.yaml's expect), on the live federation."""
    found = []
    for key, want in case.expect.items():
        if "placement" in want and placement(live, key) != sorted(want["placement"]):
            found.append(f"{key}: placed on {placement(live, key)}, e2e {want['placement']}")
        if "policy" in want and claim(live.templates.get(key, {})) != want["policy"]:
            found.append(f"{key}: claimed by {claim(live.templates.get(key, {}))}")
        if "suspended" in want and suspended(live, key) != sorted(want["suspended"]):
            found.append(f"{key}: suspended on {suspended(live, key)}, e2e {want['suspended']}")
        if "propagateDeps" in want:
            binding = live.bindings.get(key, {}).get("spec", {})
            if bool(binding.get("propagateDeps")) is not want["propagateDeps"]:
                found.append(f"{key}: propagateDeps {binding.get('propagateDeps')}")
        for cluster, copy in sorted(live.copies.get(key, {}).items()):
            where = f"{key} on {cluster}"
            for pointer, value in want.get("equals", {}).items():
                if at(copy, pointer) != value:
                    found.append(f"{where}: {pointer} is {at(copy, pointer)!r}, e2e {value!r}")
            for pointer in want.get("absent", []):
                if not missing(at(copy, pointer)):
                    found.append(f"{where}: {pointer} present")
            for pointer, parts in want.get("contains", {}).items():
                for part in parts:
                    if part not in str(at(copy, pointer)):
                        found.append(f"{where}: {pointer} lacks {part!r}")
            for pointer, parts in want.get("excludes", {}).items():
                for part in parts:
                    if part in str(at(copy, pointer)):
                        found.append(f"{where}: {pointer} holds {part!r}")
    return found


@dataclass
class Outcome:
    case: Case
    planned: dict[str, dict[str, Any]]
    live: Live
    seconds: float


@dataclass
class Run:
    outcomes: dict[int, Outcome]
    seconds: float
    waves: list[tuple[int, float, bool]]
    """Each wave: its cases, its seconds, whether it came to what the plan says."""


def _set_members(federation: Federation, case: Case) -> None:
    """The members' labels, provider and region as the case's wave needs (the suite's
    framework.UpdateClusterLabels / the fieldselector test's cluster update)."""
    for member in case.clusters:
        current = federation.json("get", "cluster", member["name"])
        labels = {k: None for k in current["metadata"].get("labels") or {} if k.endswith("-e2e")}
        labels.update(member.get("labels") or {})
        spec = {key: member.get(key) for key in ("provider", "region", "zone")}
        patch = json.dumps({"metadata": {"labels": labels}, "spec": spec})
        result = federation.kubectl("patch", "cluster", member["name"], "--type=merge", "-p", patch)
        assert result.returncode == 0, result.stderr
    time.sleep(2)  # the scheduler's cache of the clusters follows its watch


def _retire(federation: Federation, earlier: list[Case], wave: list[Case]) -> None:
    """Before a wave, the earlier cases holding the same CRD give it up as the suite's Its do:
    their ClusterPropagationPolicies deleted (Karmada keeps the binding: the next policy
    claims it); where the new case places the CRD nowhere, its binding too, waiting until no
    member holds the CRD."""
    crds = {name for case in wave for name in case.crds}
    for case in earlier:
        for obj in case.objects if case.crds & crds else []:
            if obj["kind"] == "ClusterPropagationPolicy":
                name = obj["metadata"]["name"]
                result = federation.kubectl(
                    "delete", _resource(obj["apiVersion"], obj["kind"]), name, "--ignore-not-found"
                )
                assert result.returncode == 0, result.stderr
    for case in wave:
        for crd in case.crds:
            if case.expect.get(f"CustomResourceDefinition {crd}", {}).get("placement") != []:
                continue
            binding = f"{crd}-customresourcedefinition"
            federation.kubectl("delete", "clusterresourcebinding", binding, "--ignore-not-found")
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and any(
                federation.kubectl("get", "crd", crd, member=m).returncode == 0
                for m in federation.members
            ):
                time.sleep(1)


def _apply(federation: Federation, wave: list[Case]) -> None:
    """The wave's namespaces and policies, then (after the suite's 5 s for the controllers'
    informers) its templates, in the order Karmada's e2e creates them: a template made first
    is claimed by the first policy that selects it, and a policy of the same priority made
    after it does not take it over (tests/e2e/README.md, differences)."""
    namespaces = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": case.namespace}}
        for case in wave
    ]
    policies = [obj for case in wave for obj in case.objects if obj["kind"] in POLICIES]
    # The port gives its Pod a uid (e2e.yaml's helper); the API server assigns its own, and
    # apply with another one is refused as a precondition.
    templates = [_without_uid(obj) for case in wave for obj in case.templates]
    for documents in ([*namespaces, *policies], templates):
        # server-side apply: one request an object (client-side apply reads each first; on a
        # loaded machine each request to the API server takes 0.1-2 s), and a CRD an earlier
        # wave made is applied again as the suite's next It makes it.
        result = controlplane.kubectl(
            federation.karmada,
            "apply",
            "--server-side",
            "-f",
            "-",
            stdin=yaml.safe_dump_all(documents),
            check=False,
            timeout=600,
        )
        assert result.returncode == 0, result.stderr
        if documents is not templates:
            time.sleep(5)


def _without_uid(obj: dict[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in obj["metadata"].items() if k != "uid"}
    return {**obj, "metadata": meta}


def _settled(live: Live, outcomes: list[tuple[Case, dict[str, dict[str, Any]]]]) -> bool:
    return all(
        not plan_differences(live, key, planned)
        for _, plans in outcomes
        for key, planned in plans.items()
    )


@pytest.fixture(scope="module")
def karmada_e2e(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    """A federation of Karmada e2e's members (member1..3, unlabelled), fedgate serving the
    bundle the plan reads."""
    directory = tmp_path_factory.mktemp("federation-karmada-e2e")
    bundle = write_bundle(directory / "policies", _clusters(CASES[0]))
    with running(directory, bundle, "per-component") as federation:
        yield federation


@pytest.fixture(scope="module")
def run(karmada_e2e: Federation, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_cases(karmada_e2e, tmp_path_factory.mktemp("karmada-e2e-plans"))


def run_cases(federation: Federation, work: Path, cases: list[Case] = CASES) -> Run:
    """Every case applied, wave after wave, each wave observed until the federation holds
    what the plan says or WAVE_SECONDS pass (then the differences are the tests' to report)."""
    started = time.monotonic()
    outcomes: dict[int, Outcome] = {}
    timings = []
    done: list[Case] = []
    for wave in waves(cases):
        wave_started = time.monotonic()
        _set_members(federation, wave[0])
        _retire(federation, done, wave)
        plans = [(case, plan_of(case, work)) for case in wave]
        _apply(federation, wave)
        applied = time.monotonic() - wave_started
        deadline = time.monotonic() + WAVE_SECONDS
        while True:
            live = observe(federation, wave)
            settled = _settled(live, plans)
            if settled or time.monotonic() > deadline:
                break
            time.sleep(2)
        # A template the plan places nowhere is settled at once (no binding, no copy): the
        # wave's other templates, applied with it, give the detector its time to (not) claim it.
        seconds = time.monotonic() - wave_started
        for case, planned in plans:
            outcomes[case.index] = Outcome(case, planned, live, seconds)
        timings.append((len(wave), round(seconds), settled))
        print(f"wave of {len(wave)} cases: {seconds:.0f} s ({applied:.0f} s to create)", flush=True)
        done.extend(wave)
    return Run(outcomes, time.monotonic() - started, timings)


@pytest.mark.parametrize("index", [c.index for c in CASES], ids=[c.name for c in CASES])
def test_karmada_e2e_case_live(run: Run, index: int) -> None:
    outcome = run.outcomes[index]
    found = e2e_differences(outcome.live, outcome.case)
    assert not found, "Karmada's e2e expectation:\n" + "\n".join(found)


@pytest.mark.parametrize("index", [c.index for c in CASES], ids=[c.name for c in CASES])
def test_karmada_e2e_case_live_is_its_plan(run: Run, index: int) -> None:
    outcome = run.outcomes[index]
    found = [
        difference
        for key, planned in outcome.planned.items()
        for difference in plan_differences(outcome.live, key, planned)
    ]
    assert not found, "fedgate plan --tree:\n" + "\n".join(found)


def test_every_wave_came_to_its_plan(run: Run) -> None:
    """Each wave's federation reached what the plan says within WAVE_SECONDS (the cases'
    tests name what differs where one did not); the waves' times are printed (-s)."""
    print(f"karmada e2e cases: {run.seconds:.0f} s, waves (cases, s, settled) {run.waves}")
    assert sorted(run.outcomes) == [case.index for case in CASES]
    assert all(settled for _, _, settled in run.waves), run.waves

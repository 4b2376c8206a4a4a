"""kube-controller-manager's deletion-path writes against the live federation, fedgate registered.

Every Karmada installer runs a kube-controller-manager against the Karmada API server; the
harness runs it as they do (tests/e2e/controlplane.py KUBE_CONTROLLERS), each controller its
own service account. In each identity layout: deleting a tenant's namespace that holds a
template, its PropagationPolicy (with Karmada's finalizer) and an OverridePolicy completes; the
garbage collector deletes (or orphans) what an owner deleted with each propagation policy owned;
the ttl-after-finished controller deletes a finished Job; and the audit log holds no denial of
any of their writes (nor of the Karmada controllers' finalizer removals on the way).
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import controlplane
from tests.e2e.conftest import ARGOCD, ARGOCD_GROUPS, Federation, eventually
from tests.e2e.identities import ALICE, TEAM_A, TEST_USERS, cluster_admin, control_plane_denials
from tests.e2e.sync import Synced
from tests.webhook.livecase import NAMESPACE, hand_made, policy
from webhook.engine import controllers

pytestmark = pytest.mark.slow

SCRATCH = "platform-scratch"
"""A namespace the platform gives team-a for these tests, then deletes."""
PP_FINALIZER = "karmada.io/propagation-policy-controller"
NAMESPACE_GONE_SECONDS = 120
"""The bound for a namespace's deletion: the namespace controller's first pass, Karmada's
finalizer removals and the binding's Work deletion in cluster-a, on a loaded 2-core machine."""
CONTROLLERS = {controllers.SERVICE_ACCOUNT + name for name in controllers.CONTROLLERS}
"""The users of kube-controller-manager's controllers that write what fedgate sees."""


def _in(namespace: str, obj: dict[str, Any]) -> dict[str, Any]:
    moved = copy.deepcopy(obj)
    moved["metadata"]["namespace"] = namespace
    return moved


def _override(name: str, namespace: str, target: str) -> dict[str, Any]:
    """An OverridePolicy of team-a labelling its Deployment in cluster-a."""
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": target}],
            "overrideRules": [
                {
                    "targetCluster": {"clusterNames": ["cluster-a"]},
                    "overriders": {
                        "labelsOverrider": [{"operator": "add", "value": {"tier": "scratch"}}]
                    },
                }
            ],
        },
    }


def _create(federation: Federation, obj: dict[str, Any], *extra: str) -> None:
    result = federation.kubectl(
        "create", *extra, "-f", "-", user=ALICE, groups=TEAM_A, stdin=json.dumps(obj)
    )
    assert result.returncode == 0, result.stderr


def _exists(federation: Federation, *args: str, member: str | None = None) -> bool:
    return federation.kubectl("get", *args, "-o", "name", member=member).returncode == 0


def _delete_namespace(federation: Federation, namespace: str) -> None:
    """Delete ``namespace`` and wait, within the bound, until it is gone."""
    deleted = federation.kubectl("delete", "namespace", namespace, "--wait=false")
    assert deleted.returncode == 0, deleted.stderr
    eventually(
        f"namespace {namespace} gone",
        lambda: not _exists(federation, "namespace", namespace),
        seconds=NAMESPACE_GONE_SECONDS,
    )


def _audit_of(federation: Federation, namespace: str) -> list[dict[str, Any]]:
    return [r for r in federation.audit() if r.get("namespace") == namespace]


@pytest.fixture(scope="module", autouse=True)
def team_a(federation: Federation) -> None:
    """team-a's namespace and RBAC letting its people write (as the sync fixture makes them),
    so only fedgate stands in the way; applied again when that fixture already did."""
    setup = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
        cluster_admin("e2e-team-a", "Group", TEAM_A[0]),
    ]
    result = federation.kubectl(
        "apply", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": setup})
    )
    assert result.returncode == 0, result.stderr


@pytest.fixture
def scratch(federation: Federation, tmp_path: Path) -> Iterator[str]:
    """team-a's second namespace: created, and added to team-a's tenancy in the bundle fedgate
    serves (the platform's ConfigMap); the original bundle served again after."""
    made = federation.kubectl("create", "namespace", SCRATCH)
    assert made.returncode == 0, made.stderr
    volume = Path(federation.env["webhook"]["bundle"])
    original = tmp_path / "original"
    shutil.copytree((volume / "..data").resolve(), original)
    widened = tmp_path / "widened"
    shutil.copytree(original, widened)
    tenants = widened / "tenants.yaml"
    text = tenants.read_text()
    assert "namespaces: [platform-demo]" in text
    widen = text.replace("namespaces: [platform-demo]", f"namespaces: [{NAMESPACE}, {SCRATCH}]")
    tenants.write_text(widen)
    _serve(federation, widened, volume)
    try:
        eventually(f"{SCRATCH} served as team-a's", lambda: _admits(federation, SCRATCH))
        yield SCRATCH
    finally:
        _serve(federation, original, volume)
        federation.kubectl("delete", "namespace", SCRATCH, "--ignore-not-found", "--wait=false")
        # a reloaded bundle starts its live index afresh: until its first lists are in, a
        # tenant's write that needs them (tenancy.quota) is refused
        eventually("the original bundle's index fresh", lambda: _admits(federation, NAMESPACE))


LISTENING = "ASGI server listening"
WORKERS = 2  # fedgate serve --workers in controlplane.Federation.start_fedgate


def _serve(federation: Federation, bundle: Path, volume: Path) -> None:
    """Mount ``bundle`` as fedgate's and wait for the reload: its new workers listening. The
    old workers serve the old bundle until then, so a test waits for both before writing
    what the new bundle decides."""
    before = federation.log("fedgate").count(LISTENING)
    controlplane.mount(bundle, volume)
    eventually(
        "fedgate's workers reloaded",
        lambda: federation.log("fedgate").count(LISTENING) >= before + WORKERS,
    )


def _admits(federation: Federation, namespace: str) -> bool:
    """Whether alice may create a Deployment in ``namespace`` (a dry run)."""
    probe = json.dumps(_in(namespace, hand_made("probe")))
    return (
        federation.kubectl(
            "create", "--dry-run=server", "-f", "-", user=ALICE, groups=TEAM_A, stdin=probe
        ).returncode
        == 0
    )


# --- the namespace controller ---------------------------------------------------------------


def test_deleting_a_tenant_namespace_completes(federation: Federation, scratch: str) -> None:
    """A template, its PropagationPolicy (Karmada's finalizer on it) and an OverridePolicy, the
    template propagated to cluster-a: the namespace's deletion completes within the bound; the
    namespace controller deleted them, Karmada removed its finalizers, and cluster-a's copy is
    gone with the Work."""
    name = "scratch-app"
    _create(federation, _in(scratch, hand_made(name)))
    _create(federation, _in(scratch, policy(name, name)))
    _create(federation, _override(name, scratch, name))
    eventually(
        "Karmada's finalizer on the PropagationPolicy",
        lambda: (
            PP_FINALIZER
            in federation.json("get", "propagationpolicy", name, "-n", scratch)["metadata"].get(
                "finalizers", []
            )
        ),
    )

    def overridden() -> bool:
        # the OverridePolicy lands after the template: Karmada may place a copy without it
        # first, then rewrite the Work
        if not _exists(federation, "deployment", name, "-n", scratch, member="cluster-a"):
            return False
        copy = federation.json("get", "deployment", name, "-n", scratch, member="cluster-a")
        return copy["metadata"].get("labels", {}).get("tier") == "scratch"

    eventually("the template in cluster-a, overridden", overridden)

    _delete_namespace(federation, scratch)
    eventually(
        "cluster-a's copy gone with its Work",
        lambda: not _exists(federation, "deployment", name, "-n", scratch, member="cluster-a"),
    )
    # (the fixture's dry runs were refused until the widened tenancy was served)
    denied = [r for r in _audit_of(federation, scratch) if not r["allowed"] and not r["dryRun"]]
    assert not denied, denied
    if federation.identities == "admin":
        # system:admin is also the operator's user, so the controller-manager's writes of the
        # policy (its claim, its finalizer added, then removed) reached fedgate: all admitted
        karmada = [
            r
            for r in _audit_of(federation, scratch)
            if r["user"] == controlplane.ADMIN_USER and r["kind"].endswith("/PropagationPolicy")
        ]
        assert karmada, "no write of Karmada's to the PropagationPolicy reached fedgate"


# --- the garbage collector ------------------------------------------------------------------


def _owned(name: str, owner: dict[str, Any]) -> dict[str, Any]:
    dependent = hand_made(name)
    dependent["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": owner["metadata"]["name"],
            "uid": owner["metadata"]["uid"],
            "blockOwnerDeletion": True,
        }
    ]
    return dependent


@pytest.mark.parametrize("cascade", ["background", "foreground", "orphan"])
def test_the_garbage_collector_deletes_or_orphans_what_an_owner_owned(
    federation: Federation, cascade: str
) -> None:
    """alice's Deployment owns another (ownerReferences, blockOwnerDeletion); she deletes the
    owner with each propagation policy. Background and foreground: the garbage collector
    deletes the dependent (foreground: then removes foregroundDeletion from the owner, an
    UPDATE fedgate reviews). Orphan: it removes the owner reference from the dependent and the
    orphan finalizer from the owner (UPDATEs fedgate reviews), and the dependent stays."""
    owner_name, dependent_name = f"gc-owner-{cascade}", f"gc-dependent-{cascade}"
    as_alice = partial(federation.kubectl, user=ALICE, groups=TEAM_A)
    try:
        _create(federation, hand_made(owner_name))
        owner = federation.json("get", "deployment", owner_name, "-n", NAMESPACE)
        _create(federation, _owned(dependent_name, owner))
        delete = ("delete", "deployment", owner_name, "-n", NAMESPACE, f"--cascade={cascade}")
        result = as_alice(*delete, "--wait=false")
        assert result.returncode == 0, result.stderr
        eventually(
            "the owner gone",
            lambda: not _exists(federation, "deployment", owner_name, "-n", NAMESPACE),
        )
        if cascade == "orphan":
            dependent = federation.json("get", "deployment", dependent_name, "-n", NAMESPACE)
            assert not dependent["metadata"].get("ownerReferences"), dependent["metadata"]
        else:
            eventually(
                "the dependent garbage-collected",
                lambda: not _exists(federation, "deployment", dependent_name, "-n", NAMESPACE),
            )
        collector = [
            r
            for r in federation.audit()
            if r["user"] == controllers.SERVICE_ACCOUNT + "generic-garbage-collector"
            and r.get("name") in (owner_name, dependent_name)
        ]
        assert all(r["allowed"] for r in collector), collector
        if cascade != "background":  # the collector's UPDATEs reached fedgate
            assert collector, "no write of the garbage collector reached fedgate"
    finally:
        for name in (owner_name, dependent_name):
            as_alice("delete", "deployment", name, "-n", NAMESPACE, "--ignore-not-found")


# --- the ttl-after-finished controller ------------------------------------------------------


def _job(name: str) -> dict[str, Any]:
    pod = hand_made(name)["spec"]["template"]
    pod["spec"]["restartPolicy"] = "Never"
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"ttlSecondsAfterFinished": 0, "backoffLimit": 0, "template": pod},
    }


def _succeeded(now: str) -> dict[str, Any]:
    """The status a member's job controller writes when the Job's one pod has succeeded:
    SuccessCriteriaMet, then Complete (the order the API server's Job status validation
    requires), completionTime."""
    conditions = [
        {"type": kind, "status": "True", "lastProbeTime": now, "lastTransitionTime": now}
        for kind in ("SuccessCriteriaMet", "Complete")
    ]
    return {
        "status": {
            "startTime": now,
            "completionTime": now,
            "succeeded": 1,
            "conditions": conditions,
        }
    }


def test_a_finished_job_is_deleted_after_its_ttl(federation: Federation) -> None:
    """alice's Job (ttlSecondsAfterFinished 0) and its PropagationPolicy to cluster-a; the
    member's copy written finished by hand, as the member's job controller would (members run
    no controller and no kubelet here); Karmada aggregates that status into the template
    (pkg/util/helper/job.go ParsingJobStatus); the ttl-after-finished controller deletes the
    template (propagationPolicy Foreground, so the garbage collector then removes the
    foregroundDeletion finalizer: an UPDATE fedgate reviews); Karmada removes the member's copy."""
    name = "ttl-job"
    as_alice = partial(federation.kubectl, user=ALICE, groups=TEAM_A)
    job_policy = policy(name, name)
    job_policy["spec"]["resourceSelectors"] = [
        {"apiVersion": "batch/v1", "kind": "Job", "name": name}
    ]
    try:
        _create(federation, job_policy)
        _create(federation, _job(name))
        eventually(
            "the Job in cluster-a",
            lambda: _exists(federation, "job", name, "-n", NAMESPACE, member="cluster-a"),
        )
        now = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        finished = federation.kubectl(
            "patch",
            "job",
            name,
            "-n",
            NAMESPACE,
            "--subresource=status",
            "--type=merge",
            "-p",
            json.dumps(_succeeded(now)),
            member="cluster-a",
        )
        assert finished.returncode == 0, finished.stderr
        eventually(
            "the finished Job deleted",
            lambda: not _exists(federation, "job", name, "-n", NAMESPACE),
            seconds=90,
        )
        eventually(
            "cluster-a's copy gone with its Work",
            lambda: not _exists(federation, "job", name, "-n", NAMESPACE, member="cluster-a"),
        )
        writes = [r for r in federation.audit() if r.get("name") == name]
        assert all(r["allowed"] for r in writes), [r for r in writes if not r["allowed"]]
        collector = controllers.SERVICE_ACCOUNT + "generic-garbage-collector"
        assert any(r["user"] == collector for r in writes), "no foregroundDeletion removal"
    finally:
        as_alice("delete", "job", name, "-n", NAMESPACE, "--ignore-not-found")
        as_alice("delete", "propagationpolicy", name, "-n", NAMESPACE, "--ignore-not-found")


# --- a namespace Argo CD synced: Karmada's hpaScaleTargetMarker on the way --------------------

SYNCED_NAMESPACE = "payments"
"""team-b's synced namespace: payments-api is a member-hpa app (its HPA beside it)."""


RETAIN_LABEL = "resourcetemplate.karmada.io/retain-replicas"


def _marker_writes(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The control plane's UPDATEs of payments-api: the marker's removal of the label."""
    return [
        r
        for r in records
        if r["user"] not in TEST_USERS
        and r["name"] == "payments-api"
        and r["kind"] == "apps/v1/Deployment"
        and r["operation"] == "UPDATE"
    ]


def _labels(federation: Federation, namespace: str) -> dict[str, str]:
    """payments-api's labels."""
    found = federation.json("get", "deployment", "payments-api", "-n", namespace)
    return dict(found["metadata"].get("labels") or {})


def test_deleting_a_synced_namespace_denies_no_control_plane_write(
    federation: Federation,
    synced: Synced,
) -> None:
    """Deleting `payments` (synced from Git) completes, and no write of the control plane is
    denied on the way. The namespace controller deletes in no set order (deleteAllContent
    ranges over a map): when it deletes payments-api's HPA before the Deployment, Karmada's
    hpaScaleTargetMarker removes the retain-replicas label from it (reviewed in the one-user
    layout, as system:admin). So the HPA goes first here, pruned by Argo CD, and the label must
    go with it (the ledger gives it to member-hpa, which the controller-manager writes); then
    the namespace. Synced again after, as Argo CD would."""
    namespace = SYNCED_NAMESPACE
    assert _labels(federation, namespace).get(RETAIN_LABEL)
    before = len(federation.audit())
    try:
        pruned = federation.kubectl(
            "delete", "hpa", "payments-api", "-n", namespace, user=ARGOCD[0], groups=ARGOCD_GROUPS
        )
        assert pruned.returncode == 0, pruned.stderr
        eventually(
            "the marker's removal of the retain label admitted",
            lambda: RETAIN_LABEL not in _labels(federation, namespace),
        )
        _delete_namespace(federation, namespace)
        during = federation.audit()[before:]
        denied = [r for r in during if r["user"] not in TEST_USERS and not r["allowed"]]
        assert not denied, "\n".join(json.dumps(r) for r in denied)
        if federation.identities == "admin":
            marker = _marker_writes(during)
            assert marker, "the marker's label removal never reached fedgate"
            assert all(r["user"] == controlplane.ADMIN_USER for r in marker), marker
    finally:
        federation.kubectl("create", "namespace", namespace)
        federation.kubectl(
            "apply",
            "-R",
            "-f",
            str(synced.rendered / namespace),
            user=ARGOCD[0],
            groups=ARGOCD_GROUPS,
        )


# --- over the module: no write of kube-controller-manager's was denied -----------------------


def test_no_kube_controller_manager_write_was_denied(federation: Federation) -> None:
    """Every write of the control plane fedgate reviewed was admitted, kube-controller-manager's
    controllers' among them; their DELETEs never reached fedgate (the registration's
    matchConditions), only the garbage collector's UPDATEs did."""
    denied = control_plane_denials(federation)
    assert not denied, "\n".join(denied)
    reached = [r for r in federation.audit() if r["user"] in CONTROLLERS]
    assert all(r["operation"] == "UPDATE" for r in reached), reached

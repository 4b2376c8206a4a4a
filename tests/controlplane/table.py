"""The control plane's writers and the writes that are their job, as data: one table that
tests/controlplane/test_writers_table.py runs against every rule of the bundle and
docs/control-plane.md shows.

Each write lands on an object break-glass wrote that breaks every rule about contents it can:
a Docker Hub image tagged latest, no requests, 5,000 replicas, a claim mounted (stateful), a
policy that places everywhere, takes Git's template over and fails a StatefulSet over
Gracefully. A write of only the writer's own fields passes all the same; the same write with
one field of the object's contents changed beside them is judged whole, and denied.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

NAMESPACE = "platform-demo"
DELETING = "2026-12-02T06:00:00Z"

CONTROLLER_MANAGER = ("system:karmada:karmada-controller-manager", ("system:masters",))
SYSTEM_ADMIN = ("system:admin", ("system:masters",))
SCHEDULER = ("system:karmada:karmada-scheduler", ("system:masters",))
DESCHEDULER = ("system:karmada:karmada-descheduler", ("system:masters",))
AGENT_B = ("system:karmada:agent:cluster-b", ("system:karmada:agents",))
_KCM_GROUPS = ("system:serviceaccounts", "system:serviceaccounts:kube-system")
NAMESPACE_CONTROLLER = ("system:serviceaccount:kube-system:namespace-controller", _KCM_GROUPS)
GARBAGE_COLLECTOR = ("system:serviceaccount:kube-system:generic-garbage-collector", _KCM_GROUPS)
TTL_CONTROLLER = ("system:serviceaccount:kube-system:ttl-after-finished-controller", _KCM_GROUPS)
KUBE_CONTROLLER_MANAGER = ("system:kube-controller-manager", ())
TENANT = ("alice@example.com", ("team-a",))


def _pod_spec() -> dict[str, Any]:
    return {
        "containers": [{"name": "app", "image": "docker.io/library/nginx:latest"}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}],
    }


def _meta(name: str) -> dict[str, Any]:
    return {"name": name, "namespace": NAMESPACE, "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, name))}


def _template(kind: str, group_version: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": group_version,
        "kind": kind,
        "metadata": _meta(kind.lower()),
        "spec": spec,
    }


_SELECTOR = {"matchLabels": {"app": "x"}}
_POD_TEMPLATE = {"metadata": {"labels": {"app": "x"}}, "spec": _pod_spec()}
_GIT_TEMPLATE = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "demo-http"}
_PLACE_EVERYWHERE = {
    "resourceSelectors": [
        {**_GIT_TEMPLATE, "namespace": NAMESPACE},
        {"apiVersion": "apps/v1", "kind": "StatefulSet"},
        {"apiVersion": "v1", "kind": "Secret"},
    ],
    "propagateDeps": True,
    "preemption": "Always",
    "priority": 1000,
    "failover": {"application": {"decisionConditions": {}, "purgeMode": "Gracefully"}},
}

OBJECTS: dict[str, dict[str, Any]] = {
    "Deployment": _template(
        "Deployment",
        "apps/v1",
        {"replicas": 5000, "selector": _SELECTOR, "template": _POD_TEMPLATE},
    ),
    "StatefulSet": _template(
        "StatefulSet",
        "apps/v1",
        {"replicas": 5000, "selector": _SELECTOR, "template": _POD_TEMPLATE},
    ),
    "DaemonSet": _template(
        "DaemonSet", "apps/v1", {"selector": _SELECTOR, "template": _POD_TEMPLATE}
    ),
    "ReplicaSet": _template(
        "ReplicaSet",
        "apps/v1",
        {"replicas": 5000, "selector": _SELECTOR, "template": _POD_TEMPLATE},
    ),
    "Job": _template("Job", "batch/v1", {"parallelism": 5000, "template": _POD_TEMPLATE}),
    "CronJob": _template(
        "CronJob",
        "batch/v1",
        {
            "schedule": "* * * * *",
            "jobTemplate": {"spec": {"parallelism": 5000, "template": _POD_TEMPLATE}},
        },
    ),
    "Pod": _template("Pod", "v1", _pod_spec()),
    "ReplicationController": _template(
        "ReplicationController",
        "v1",
        {"replicas": 5000, "selector": {"app": "x"}, "template": _POD_TEMPLATE},
    ),
    "HorizontalPodAutoscaler": _template(
        "HorizontalPodAutoscaler",
        "autoscaling/v2",
        {"scaleTargetRef": _GIT_TEMPLATE, "minReplicas": 50, "maxReplicas": 10000},
    ),
    "FederatedHPA": _template(
        "FederatedHPA",
        "autoscaling.karmada.io/v1alpha1",
        {"scaleTargetRef": _GIT_TEMPLATE, "minReplicas": 50, "maxReplicas": 10000},
    ),
    "CronFederatedHPA": _template(
        "CronFederatedHPA",
        "autoscaling.karmada.io/v1alpha1",
        {
            "scaleTargetRef": _GIT_TEMPLATE,
            "rules": [{"name": "up", "schedule": "* * * * *", "targetReplicas": 10000}],
        },
    ),
    "PropagationPolicy": _template(
        "PropagationPolicy", "policy.karmada.io/v1alpha1", _PLACE_EVERYWHERE
    ),
    "ClusterPropagationPolicy": {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterPropagationPolicy",
        "metadata": {"name": "everything", "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, "cpp"))},
        "spec": _PLACE_EVERYWHERE,
    },
    "OverridePolicy": _template(
        "OverridePolicy",
        "policy.karmada.io/v1alpha1",
        {
            "resourceSelectors": [_GIT_TEMPLATE],
            "overrideRules": [
                {
                    "overriders": {
                        "imageOverrider": [
                            {"component": "Registry", "operator": "replace", "value": "docker.io"}
                        ],
                        "plaintext": [
                            {"path": "/spec/replicas", "operator": "replace", "value": 5000}
                        ],
                    }
                }
            ],
        },
    ),
    "ResourceBinding": _template(
        "ResourceBinding",
        "work.karmada.io/v1alpha2",
        {
            "resource": {**_GIT_TEMPLATE, "namespace": NAMESPACE},
            "clusters": [
                {"name": "cluster-a", "replicas": 3},
                {"name": "cluster-b", "replicas": 3},
            ],
        },
    ),
    "ClusterResourceBinding": {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ClusterResourceBinding",
        "metadata": {
            "name": "platform-demo-namespace",
            "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, "crb")),
        },
        "spec": {"resource": {"apiVersion": "v1", "kind": "Namespace", "name": NAMESPACE}},
    },
    "Work": {
        "apiVersion": "work.karmada.io/v1alpha1",
        "kind": "Work",
        "metadata": {
            "name": "demo-http-deployment",
            "namespace": "karmada-es-cluster-b",
            "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, "work")),
        },
        "spec": {"workload": {"manifests": [{"apiVersion": "apps/v1", "kind": "Deployment"}]}},
    },
    "Scale": {
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": {"name": "deployment", "namespace": NAMESPACE},
        "spec": {"replicas": 5000},
    },
}
"""One object of each kind the webhook sees, as break-glass (or Karmada) left it; a Scale is
what the scale subresource of the Deployment carries."""

RESOURCES = {
    "Deployment": ("apps", "v1", "deployments"),
    "StatefulSet": ("apps", "v1", "statefulsets"),
    "DaemonSet": ("apps", "v1", "daemonsets"),
    "ReplicaSet": ("apps", "v1", "replicasets"),
    "Job": ("batch", "v1", "jobs"),
    "CronJob": ("batch", "v1", "cronjobs"),
    "Pod": ("", "v1", "pods"),
    "ReplicationController": ("", "v1", "replicationcontrollers"),
    "HorizontalPodAutoscaler": ("autoscaling", "v2", "horizontalpodautoscalers"),
    "FederatedHPA": ("autoscaling.karmada.io", "v1alpha1", "federatedhpas"),
    "CronFederatedHPA": ("autoscaling.karmada.io", "v1alpha1", "cronfederatedhpas"),
    "PropagationPolicy": ("policy.karmada.io", "v1alpha1", "propagationpolicies"),
    "ClusterPropagationPolicy": ("policy.karmada.io", "v1alpha1", "clusterpropagationpolicies"),
    "OverridePolicy": ("policy.karmada.io", "v1alpha1", "overridepolicies"),
    "ResourceBinding": ("work.karmada.io", "v1alpha2", "resourcebindings"),
    "ClusterResourceBinding": ("work.karmada.io", "v1alpha2", "clusterresourcebindings"),
    "Work": ("work.karmada.io", "v1alpha1", "works"),
    "Scale": ("autoscaling", "v1", "deployments"),
}
RESOURCE_GROUPS = {"Scale": "apps"}
"""Where the resource's group is not the kind's: deployments/scale takes an autoscaling/v1 Scale."""
TEMPLATES = (
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "ReplicaSet",
    "Job",
    "CronJob",
    "Pod",
    "ReplicationController",
    "HorizontalPodAutoscaler",
)
"""What Karmada's detector claims (any kind a policy selects; these are the ones fedgate judges)."""
POLICIES = ("PropagationPolicy", "ClusterPropagationPolicy")
AUTOSCALERS = ("FederatedHPA", "CronFederatedHPA")
BINDINGS = ("ResourceBinding", "ClusterResourceBinding")
NAMESPACED_CONTENT = tuple(k for k in OBJECTS if k not in ("ClusterPropagationPolicy", "Scale"))
NAMESPACED = tuple(k for k in NAMESPACED_CONTENT if k != "ClusterResourceBinding")
"""What a namespace holds: the namespace controller deletes these, nothing cluster-scoped."""

Edit = Callable[[dict[str, Any]], tuple[dict[str, Any] | None, dict[str, Any] | None]]
"""From the object as it stands to (oldObject, object) of the write."""


def _labels(obj: dict[str, Any]) -> dict[str, Any]:
    return obj["metadata"].setdefault("labels", {})


def _annotations(obj: dict[str, Any]) -> dict[str, Any]:
    return obj["metadata"].setdefault("annotations", {})


def _claim_pp(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    new = copy.deepcopy(obj)
    _labels(new)["propagationpolicy.karmada.io/permanent-id"] = (
        "0f3b5c1e-3f44-4a51-8d8e-000000000001"
    )
    _annotations(new).update(
        {
            "propagationpolicy.karmada.io/name": "web",
            "propagationpolicy.karmada.io/namespace": NAMESPACE,
        }
    )
    return obj, new


def _claim_cpp(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    new = copy.deepcopy(obj)
    _labels(new)["clusterpropagationpolicy.karmada.io/permanent-id"] = (
        "0f3b5c1e-3f44-4a51-8d8e-000000000002"
    )
    _annotations(new)["clusterpropagationpolicy.karmada.io/name"] = "everything"
    return obj, new


def _release(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    claimed = _claim_pp(obj)[1]
    return claimed, copy.deepcopy(obj)  # CleanupPPClaimMetadata leaves no empty maps behind


def _status(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    new = copy.deepcopy(obj)
    new["status"] = {"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "True"}]}
    return obj, new


def _finalizer(name: str) -> Edit:
    def add(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        new = copy.deepcopy(obj)
        new["metadata"]["finalizers"] = [name]
        return obj, new

    return add


def _finalizer_removed_in_deletion(name: str) -> Edit:
    def remove(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        old = copy.deepcopy(obj)
        old["metadata"].update({"finalizers": [name], "deletionTimestamp": DELETING})
        new = copy.deepcopy(old)
        del new["metadata"]["finalizers"]
        return old, new

    return remove


def _delete(obj: dict[str, Any]) -> tuple[dict[str, Any], None]:
    return obj, None


def _delete_dependent(obj: dict[str, Any]) -> tuple[dict[str, Any], None]:
    old = copy.deepcopy(obj)
    old["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "gone", "uid": "1"}
    ]
    return old, None


def _delete_finished_job(obj: dict[str, Any]) -> tuple[dict[str, Any], None]:
    old = copy.deepcopy(obj)
    old["spec"]["ttlSecondsAfterFinished"] = 100
    old["status"] = {"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]}
    return old, None


def _owner_references_removed(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    old = copy.deepcopy(obj)
    old["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "gone", "uid": "1"}
    ]
    old["metadata"]["finalizers"] = ["orphan"]
    return old, copy.deepcopy(obj)


def _clusters(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    new = copy.deepcopy(obj)
    new["spec"]["clusters"] = [{"name": "cluster-a", "replicas": 6}]
    return obj, new


def _descheduled(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The descheduler lowers a cluster's replicas (updateScheduleResult), nothing else."""
    new = copy.deepcopy(obj)
    new["spec"]["clusters"][1]["replicas"] = 1
    return obj, new


def _scale(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    new = copy.deepcopy(obj)
    new["spec"]["replicas"] = 40
    return obj, new


def _eviction(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    new = copy.deepcopy(obj)
    new["spec"]["gracefulEvictionTasks"] = [
        {
            "fromCluster": "cluster-b",
            "reason": "ApplicationFailure",
            "producer": "resource-binding-application-failover-controller",
        }
    ]
    return obj, new


@dataclass(frozen=True)
class Job:
    """One writer doing one write that is its job, on the kinds it does it to."""

    name: str
    writer: str
    """Who, in Karmada's or Kubernetes' words (component and controller)."""
    user: tuple[str, tuple[str, ...]]
    operation: str
    kinds: tuple[str, ...]
    edit: Edit
    sub_resource: str = ""
    source: str = ""
    """Where upstream does it."""
    spoilable: bool = True
    """Whether the same write with one content field changed is a test of this row (not for
    deletes and for kinds no rule about contents matches)."""


JOBS: tuple[Job, ...] = (
    Job(
        "claim",
        "karmada-controller-manager (detector)",
        CONTROLLER_MANAGER,
        "UPDATE",
        TEMPLATES,
        _claim_pp,
        source="pkg/detector/claim.go AddPPClaimMetadata",
    ),
    Job(
        "cluster-claim",
        "karmada-controller-manager (detector)",
        CONTROLLER_MANAGER,
        "UPDATE",
        TEMPLATES,
        _claim_cpp,
        source="pkg/detector/claim.go AddCPPClaimMetadata",
    ),
    Job(
        "release",
        "karmada-controller-manager (detector)",
        CONTROLLER_MANAGER,
        "UPDATE",
        TEMPLATES,
        _release,
        source="pkg/detector/claim.go CleanupPPClaimMetadata",
    ),
    Job(
        "claim-as-system-admin",
        "karmada-controller-manager, one user for all (Helm, operator, karmadactl init)",
        SYSTEM_ADMIN,
        "UPDATE",
        TEMPLATES,
        _claim_pp,
        source="charts/karmada pre-install-job.yaml: CN system:admin",
    ),
    Job(
        "status",
        "karmada-controller-manager (status aggregation, FederatedHPA, CronFederatedHPA)",
        CONTROLLER_MANAGER,
        "UPDATE",
        (*TEMPLATES, *AUTOSCALERS),
        _status,
        sub_resource="status",
        source="pkg/controllers/status, federatedhpa, cronfederatedhpa: Status().Update",
    ),
    Job(
        "federatedhpa-scale",
        "karmada-controller-manager (FederatedHPA, CronFederatedHPA)",
        CONTROLLER_MANAGER,
        "UPDATE",
        ("Scale",),
        _scale,
        sub_resource="scale",
        source='pkg/controllers/federatedhpa: SubResource("scale").Update',
        spoilable=False,
    ),
    Job(
        "policy-finalizer",
        "karmada-controller-manager (detector)",
        CONTROLLER_MANAGER,
        "UPDATE",
        POLICIES,
        _finalizer("karmada.io/propagation-policy-controller"),
        source="pkg/detector/detector.go",
    ),
    Job(
        "policy-finalizer-removed",
        "karmada-controller-manager (detector)",
        CONTROLLER_MANAGER,
        "UPDATE",
        POLICIES,
        _finalizer_removed_in_deletion("karmada.io/propagation-policy-controller"),
        source="pkg/detector/detector.go RemoveFinalizer",
    ),
    Job(
        "binding-finalizer-removed",
        "karmada-controller-manager (binding controller)",
        CONTROLLER_MANAGER,
        "UPDATE",
        BINDINGS,
        _finalizer_removed_in_deletion("karmada.io/binding-controller"),
        source="pkg/controllers/binding",
        spoilable=False,
    ),
    Job(
        "graceful-eviction",
        "karmada-controller-manager (application failover, graceful eviction)",
        CONTROLLER_MANAGER,
        "UPDATE",
        ("ResourceBinding",),
        _eviction,
        source="pkg/controllers/applicationfailover",
        spoilable=False,
    ),
    Job(
        "works",
        "karmada-controller-manager (binding, namespace-sync, unified-auth controllers)",
        CONTROLLER_MANAGER,
        "CREATE",
        ("Work",),
        lambda obj: (None, obj),
        source="pkg/controllers/binding, namespace, unifiedauth: CreateOrUpdateWork",
        spoilable=False,
    ),
    Job(
        "deleted-by-karmada",
        "karmada-controller-manager (binding controller, detector: what a template drops)",
        CONTROLLER_MANAGER,
        "DELETE",
        (*BINDINGS, "Work"),
        _delete,
        source="pkg/controllers/binding, pkg/detector",
        spoilable=False,
    ),
    Job(
        "work-finalizer-removed",
        "karmada-controller-manager (execution controller, push mode)",
        CONTROLLER_MANAGER,
        "UPDATE",
        ("Work",),
        _finalizer_removed_in_deletion("karmada.io/execution-controller"),
        source="pkg/controllers/execution",
        spoilable=False,
    ),
    Job(
        "work-status-by-agent",
        "karmada-agent of cluster-b (work-status controller, pull mode)",
        AGENT_B,
        "UPDATE",
        ("Work",),
        _status,
        sub_resource="status",
        source="karmadactl register: Role system:karmada:<cluster>:agent-work",
        spoilable=False,
    ),
    Job(
        "work-finalizer-by-agent",
        "karmada-agent of cluster-b (execution controller, pull mode)",
        AGENT_B,
        "UPDATE",
        ("Work",),
        _finalizer_removed_in_deletion("karmada.io/execution-controller"),
        source="pkg/controllers/execution",
        spoilable=False,
    ),
    Job(
        "schedule",
        "karmada-scheduler",
        SCHEDULER,
        "UPDATE",
        BINDINGS,
        _clusters,
        source="pkg/scheduler/scheduler.go: Patch",
        spoilable=False,
    ),
    Job(
        "schedule-status",
        "karmada-scheduler",
        SCHEDULER,
        "UPDATE",
        BINDINGS,
        _status,
        sub_resource="status",
        source="pkg/scheduler/scheduler.go: Patch status",
        spoilable=False,
    ),
    Job(
        "deschedule",
        "karmada-descheduler",
        DESCHEDULER,
        "UPDATE",
        ("ResourceBinding",),
        _descheduled,
        source="pkg/descheduler/descheduler.go: updateScheduleResult",
        spoilable=False,
    ),
    Job(
        "namespace-deleted",
        "kube-controller-manager (namespace controller)",
        NAMESPACE_CONTROLLER,
        "DELETE",
        NAMESPACED,
        _delete,
        source="pkg/controller/namespace/deletion: deleteAllContent",
        spoilable=False,
    ),
    Job(
        "garbage-collected",
        "kube-controller-manager (garbage collector: a dependent whose owner is gone)",
        GARBAGE_COLLECTOR,
        "DELETE",
        (*NAMESPACED_CONTENT, "ClusterPropagationPolicy"),
        _delete_dependent,
        source="pkg/controller/garbagecollector: attemptToDeleteItem",
        spoilable=False,
    ),
    Job(
        "orphaned",
        "kube-controller-manager (garbage collector: orphan)",
        GARBAGE_COLLECTOR,
        "UPDATE",
        (*NAMESPACED_CONTENT, "ClusterPropagationPolicy"),
        _owner_references_removed,
        source="pkg/controller/garbagecollector: orphanDependents, removeFinalizer",
        spoilable=False,
    ),
    Job(
        "ttl-after-finished",
        "kube-controller-manager (ttl-after-finished controller)",
        TTL_CONTROLLER,
        "DELETE",
        ("Job",),
        _delete_finished_job,
        source="pkg/controller/ttlafterfinished",
        spoilable=False,
    ),
    Job(
        "deleted-without-per-controller-credentials",
        "kube-controller-manager (any controller, without --use-service-account-credentials)",
        KUBE_CONTROLLER_MANAGER,
        "DELETE",
        (*NAMESPACED_CONTENT, "ClusterPropagationPolicy"),
        _delete_dependent,
        spoilable=False,
    ),
    Job(
        "own-finalizer-removed",
        "any writer's controller removing its own finalizer from an object being deleted",
        TENANT,
        "UPDATE",
        tuple(k for k in NAMESPACED_CONTENT if k not in (*BINDINGS, "Work")),
        _finalizer_removed_in_deletion("example.com/backup"),
    ),
)


def _paused(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    new = copy.deepcopy(obj)
    new.setdefault("spec", {})["paused"] = True
    return obj, new


def _owner_added(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return obj, _owner_references_removed(obj)[0]


def _orphaned_and_paused(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    old, new = _owner_references_removed(obj)
    return old, _paused(new)[1]


def _image(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    new = copy.deepcopy(obj)
    new["spec"]["template"]["spec"]["containers"][0]["image"] = "docker.io/evil/miner:latest"
    return obj, new


def _delete_finished_job_shaped(obj: dict[str, Any]) -> tuple[dict[str, Any], None]:
    """A finished Job's TTL and condition on another kind: the kind alone is out of lane."""
    old = copy.deepcopy(obj)
    old.setdefault("spec", {})["ttlSecondsAfterFinished"] = 100
    old["status"] = {"conditions": [{"type": "Complete", "status": "True"}]}
    return old, None


EVERY_KIND = (*NAMESPACED_CONTENT, "ClusterPropagationPolicy")
OUT_OF_LANE: tuple[Job, ...] = (
    Job(
        "namespace-controller-edits",
        "kube-controller-manager (namespace controller) changing what an object holds",
        NAMESPACE_CONTROLLER,
        "UPDATE",
        NAMESPACED,
        _paused,
    ),
    Job(
        "namespace-controller-deletes-cluster-wide",
        "kube-controller-manager (namespace controller) deleting what no namespace holds",
        NAMESPACE_CONTROLLER,
        "DELETE",
        ("ClusterPropagationPolicy", "ClusterResourceBinding"),
        _delete,
    ),
    Job(
        "garbage-collector-deletes-ownerless",
        "kube-controller-manager (garbage collector) deleting an object that has no owner",
        GARBAGE_COLLECTOR,
        "DELETE",
        EVERY_KIND,
        _delete,
    ),
    Job(
        "garbage-collector-adds-owner",
        "kube-controller-manager (garbage collector) adding an owner reference",
        GARBAGE_COLLECTOR,
        "UPDATE",
        EVERY_KIND,
        _owner_added,
    ),
    Job(
        "garbage-collector-orphans-and-edits",
        "kube-controller-manager (garbage collector) orphaning and changing the object",
        GARBAGE_COLLECTOR,
        "UPDATE",
        EVERY_KIND,
        _orphaned_and_paused,
    ),
    Job(
        "ttl-controller-deletes-unfinished-job",
        "kube-controller-manager (ttl-after-finished) deleting a Job that asked for no TTL",
        TTL_CONTROLLER,
        "DELETE",
        ("Job",),
        _delete,
    ),
    Job(
        "ttl-controller-deletes-other-kinds",
        "kube-controller-manager (ttl-after-finished) deleting anything but a Job",
        TTL_CONTROLLER,
        "DELETE",
        tuple(k for k in EVERY_KIND if k != "Job"),
        _delete_finished_job_shaped,
    ),
    Job(
        "kube-controller-manager-creates",
        "kube-controller-manager creating a template (no controller of it runs there)",
        KUBE_CONTROLLER_MANAGER,
        "CREATE",
        TEMPLATES,
        lambda obj: (None, obj),
    ),
    Job(
        "kube-controller-manager-image",
        "kube-controller-manager changing a Deployment's image",
        KUBE_CONTROLLER_MANAGER,
        "UPDATE",
        ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController"),
        _image,
    ),
    Job(
        "kube-controller-manager-status",
        "kube-controller-manager writing a template's status (Karmada's to write)",
        KUBE_CONTROLLER_MANAGER,
        "UPDATE",
        TEMPLATES,
        _status,
        sub_resource="status",
    ),
)
"""Writes by kube-controller-manager's users that are no controller's job: each denied by
``ownership.system-controller`` (and judged by every other rule, as anyone's write is)."""


def rows(jobs: tuple[Job, ...] = JOBS) -> list[tuple[Job, str]]:
    return [(job, kind) for job in jobs for kind in job.kinds]


def request(job: Job, kind: str, *, spoil: bool = False) -> Mapping[str, Any]:
    """The AdmissionReview of ``job`` on the object of ``kind``; ``spoil``: with one field of
    the object's contents changed beside the writer's own."""
    old, new = job.edit(copy.deepcopy(OBJECTS[kind]))
    if spoil:
        assert new is not None
        new = copy.deepcopy(new)
        new.setdefault("spec", {})["paused"] = True
    group, version, resource = RESOURCES[kind]
    current = new if new is not None else old
    assert current is not None
    namespace = current["metadata"].get("namespace", "")
    username, groups = job.user
    body: dict[str, Any] = {
        "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{job.name}/{kind}/{spoil}")),
        "kind": {"group": group, "version": version, "kind": kind},
        "resource": {
            "group": RESOURCE_GROUPS.get(kind, group),
            "version": version,
            "resource": resource,
        },
        "name": current["metadata"]["name"],
        "namespace": namespace,
        "operation": job.operation,
        "userInfo": {"username": username, "groups": [*groups, "system:authenticated"]},
        "object": new,
        "oldObject": old,
    }
    if job.sub_resource:
        body["subResource"] = job.sub_resource
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": body}

"""Objects, override policies, clusters and image references as careless authors and
attackers write them, for the Karmada oracle (a seeded ``random.Random``, thousands a run)."""

from __future__ import annotations

import random
from typing import Any

from webhook.bundle.model import Cluster

HOSTS = [
    "",
    "",
    "docker.io",
    "registry.example.com",
    "localhost",
    "localhost:5000",
    "r:443",
    "[::1]:5000",
    "Reg.Example.COM",
    "a.b.c.d",
    "my-registry.local:8080",
    "gcr.io",
    "é.io",
    "127.0.0.1",
    "host_name",
    "x:port",
]
PATHS = [
    "nginx",
    "library/nginx",
    "team/app",
    "a/b/c/d",
    "App",
    "a..b",
    "a__b",
    "a-b",
    "-a",
    "a.b",
    "",
    "x/",
    "/x",
    "ns/na_me-1.2",
    "UPPER/case",
    "a" * 40,
    "é",
]
TAGS = [
    "",
    "",
    ":latest",
    ":1.0",
    ":v1.2.3-rc.1",
    ":" + "t" * 128,
    ":" + "t" * 129,
    ":",
    ":-x",
    ":_x",
    ":.x",
    ":x y",
    ":Ünï",
]
DIGESTS = [
    "",
    "",
    "",
    "@sha256:" + "a" * 64,
    "@sha256:" + "A" * 64,
    "@sha256:" + "a" * 63,
    "@sha512:" + "b" * 128,
    "@md5:abc",
    "@sha256:" + "0" * 64 + "x",
]
VALUES = [
    "",
    "mirror.io",
    "docker.io",
    ".cn",
    "/x",
    "new",
    "v2",
    "latest",
    "sha256:" + "c" * 64,
    "@sha256:" + "c" * 64,
    ":9",
    "ns/app",
    "a:b",
    "UP",
    " ",
    "é",
    "x/y:z",
]


def image(rng: random.Random) -> str:
    if rng.random() < 0.05:
        return "".join(rng.choice("ab/:.@-_A1é ") for _ in range(rng.randint(0, 12)))
    host = rng.choice(HOSTS)
    path = rng.choice(PATHS)
    text = f"{host}/{path}" if host else path
    return text + rng.choice(TAGS) + rng.choice(DIGESTS)


PLAINTEXT_PATHS = [
    "/metadata/labels/x",
    "/spec/replicas",
    "/metadata/annotations",
    "/spec/template/spec/containers/0/image",
    "/nope/x",
    "/spec/replicas/0",
    "/metadata/creationTimestamp",
    "/metadata/generation",
    "/spec/template/metadata/labels",
    "/spec/template/spec/containers/0/name",
    "/spec/template/spec/containers/0/command",
    "/spec/template/spec/containers/0/resources",
    "/spec/template/spec/containers/0/resources/limits/cpu",
    "/spec/template/spec/nodeSelector",
    "/spec/template/spec/tolerations",
    "/spec/strategy/rollingUpdate",
    "/spec/strategy/rollingUpdate/maxSurge",
    "/spec/containers/0/ports",
    "/spec/paused",
    "/spec/template/spec/hostNetwork",
    "/status/replicas",
    "/spec/template/spec/affinity",
    "/spec/template/spec/affinity/nodeAffinity",
    "/spec/template/spec/containers/0/image",
    "/spec/template/spec/containers/0/livenessProbe/httpGet",
    "/spec/template/spec/volumes",
    "/spec/template/spec/containers/0/env",
]
"""Where a plaintext override writes: fields the typed conversion checks, and others."""
PLAINTEXT_VALUES: list[Any] = [
    1,
    "v",
    {"a": "b"},
    None,
    [1],
    True,
    2.0,
    1.5,
    -1,
    2**40,
    "25%",
    "2026-12-02T10:00:00Z",
    "2026-13-02T10:00:00Z",
    "500m",
    " 1 ",
    "1e3",
    "Ki",
    [],
    {},
    [{"name": "p", "containerPort": "80"}],
    [{"key": "k", "tolerationSeconds": 1.5}],
    {"limits": {"cpu": True}},
    {"maxSurge": 2.5},
    {"port": "http", "path": 1},
    {"port": 2**31},
    [{"name": "v", "emptyDir": {"sizeLimit": "1Gi"}}],
    [{"name": "v", "configMap": {"defaultMode": "0644"}}],
    [{"name": "e", "value": 1}],
    {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{}]}},
    {"requiredDuringSchedulingIgnoredDuringExecution": [{}]},
]


def _strings(rng: random.Random, n: int) -> list[str]:
    return [rng.choice(["--v=2", "-x", "", "sh", "-c", "a b", "é", "--flag"]) for _ in range(n)]


def _containers(rng: random.Random) -> list[dict[str, Any]]:
    made = []
    for i in range(rng.randint(1, 3)):
        container: dict[str, Any] = {
            "name": rng.choice(["app", "side", f"c{i}", "app"]),
            "image": image(rng),
        }
        if rng.random() < 0.4:
            container["command"] = _strings(rng, rng.randint(0, 3))
        if rng.random() < 0.4:
            container["args"] = _strings(rng, rng.randint(0, 3))
        made.append(container)
    return made


def _map(rng: random.Random) -> dict[str, str]:
    keys = ["app", "team", "fedgate.dev/x", "a", "b", "k8s.io/name", "Z"]
    return {
        rng.choice(keys): rng.choice(["1", "x", "", "é", "true"]) for _ in range(rng.randint(0, 3))
    }


def workload(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(
        [
            "Deployment",
            "Deployment",
            "Pod",
            "StatefulSet",
            "ConfigMap",
            "Job",
            "DaemonSet",
            "ReplicaSet",
        ]
    )
    meta: dict[str, Any] = {"name": "w", "namespace": "team-a"}
    if rng.random() < 0.6:
        meta["labels"] = _map(rng)
    if rng.random() < 0.5:
        meta["annotations"] = _map(rng)
    pod_spec = {"containers": _containers(rng)}
    if rng.random() < 0.3:
        pod_spec["initContainers"] = _containers(rng)
    api = {"Pod": "v1", "ConfigMap": "v1", "Job": "batch/v1"}.get(kind, "apps/v1")
    obj: dict[str, Any] = {"apiVersion": api, "kind": kind, "metadata": meta}
    if kind == "Pod":
        obj["spec"] = pod_spec
    elif kind == "ConfigMap":
        obj["data"] = {"image": image(rng)}
    else:
        obj["spec"] = {"replicas": rng.randint(0, 5), "template": {"spec": pod_spec}}
    if rng.random() < 0.3:
        _write(obj, rng.choice(PLAINTEXT_PATHS), rng.choice(PLAINTEXT_VALUES))
    return obj


def _write(obj: dict[str, Any], path: str, value: Any) -> None:
    """``value`` at ``path`` (a careless author's field of any type), making the objects on the
    way; a path through a list or a scalar is left alone."""
    *parents, last = path.strip("/").split("/")
    current: Any = obj
    for key in parents:
        if isinstance(current, list) and key.isdigit() and int(key) < len(current):
            current = current[int(key)]
        elif isinstance(current, dict):
            current = current.setdefault(key, {})
        else:
            return
    if isinstance(current, dict):
        current[last] = value


def _image_overrider(rng: random.Random) -> dict[str, Any]:
    item: dict[str, Any] = {
        "component": rng.choice(["Registry", "Repository", "Tag"]),
        "operator": rng.choice(["add", "replace", "remove"]),
        "value": rng.choice(VALUES),
    }
    if rng.random() < 0.3:
        item["predicate"] = {
            "path": rng.choice(
                [
                    "/spec/template/spec/containers/0/image",
                    "/spec/containers/0/image",
                    "/spec/template/spec/containers/1/image",
                    "/data/image",
                    "/spec/template/spec/initContainers/0/image",
                    "/spec/template/spec/containers/9/image",
                    "/metadata/name",
                ]
            )
        }
    return item


def overriders(rng: random.Random) -> dict[str, Any]:
    made: dict[str, Any] = {}
    if rng.random() < 0.7:
        made["imageOverrider"] = [_image_overrider(rng) for _ in range(rng.randint(1, 3))]
    for key in ("commandOverrider", "argsOverrider"):
        if rng.random() < 0.25:
            made[key] = [
                {
                    "containerName": rng.choice(["app", "side", "c0", "none"]),
                    "operator": rng.choice(["add", "remove"]),
                    "value": _strings(rng, rng.randint(0, 3)),
                }
            ]
    for key in ("labelsOverrider", "annotationsOverrider"):
        if rng.random() < 0.25:
            made[key] = [{"operator": rng.choice(["add", "remove", "replace"]), "value": _map(rng)}]
    if rng.random() < 0.2:
        made["plaintext"] = [
            {
                "path": rng.choice(PLAINTEXT_PATHS),
                "operator": rng.choice(["add", "remove", "replace"]),
                "value": rng.choice(PLAINTEXT_VALUES),
            }
        ]
    return made


def cluster(rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    for key, values in (
        ("provider", ["aws", "gcp", ""]),
        ("region", ["us", "eu"]),
        ("zone", ["z1", "z2"]),
    ):
        if rng.random() < 0.5:
            spec[key] = rng.choice(values)
    if rng.random() < 0.3:
        spec["zones"] = rng.sample(["z1", "z2", "z3"], rng.randint(1, 3))
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": "member1", "labels": _map(rng)},
        "spec": spec,
    }


def affinity(rng: random.Random) -> dict[str, Any]:
    made: dict[str, Any] = {}
    if rng.random() < 0.5:
        made["clusterNames"] = rng.sample(["member1", "member2", ""], rng.randint(0, 2))
    if rng.random() < 0.3:
        made["exclude"] = rng.sample(["member1", "member2"], rng.randint(0, 1))
    if rng.random() < 0.4:
        made["labelSelector"] = rng.choice(
            [
                {"matchLabels": _map(rng)},
                {
                    "matchExpressions": [
                        {
                            "key": rng.choice(["app", "team", "a"]),
                            "operator": rng.choice(["In", "NotIn", "Exists", "DoesNotExist"]),
                            "values": rng.sample(["1", "x", ""], rng.randint(0, 2)),
                        }
                    ]
                },
            ]
        )
    if rng.random() < 0.3:
        made["fieldSelector"] = {
            "matchExpressions": [
                {
                    "key": rng.choice(["provider", "region", "zone"]),
                    "operator": rng.choice(["In", "NotIn", "Exists", "DoesNotExist"]),
                    "values": rng.sample(["aws", "us", "z1", "z2"], rng.randint(0, 2)),
                }
            ]
        }
    return made


def override_case(rng: random.Random) -> dict[str, Any]:
    obj = workload(rng)
    rules = []
    for _ in range(rng.randint(1, 3)):
        rule: dict[str, Any] = {"overriders": overriders(rng)}
        if rng.random() < 0.5:
            rule["targetCluster"] = affinity(rng)
        rules.append(rule)
    policies = []
    for index in range(rng.randint(1, 2)):
        namespaced = rng.random() < 0.4
        policy: dict[str, Any] = {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "OverridePolicy" if namespaced else "ClusterOverridePolicy",
            "metadata": {"name": f"p{index}", **({"namespace": "team-a"} if namespaced else {})},
            "spec": {
                "resourceSelectors": [{"apiVersion": obj["apiVersion"], "kind": obj["kind"]}],
                "overrideRules": rules if index == 0 else rules[:1],
            },
        }
        policies.append(policy)
    return {"op": "override", "object": obj, "policies": policies, "cluster": cluster(rng)}


def as_cluster(obj: dict[str, Any]) -> Cluster:
    """A generated Cluster object as fedgate's bundle holds it."""
    spec = obj.get("spec", {})
    return Cluster(
        name=obj["metadata"]["name"],
        labels=obj["metadata"].get("labels", {}),
        provider=spec.get("provider"),
        region=spec.get("region"),
        zone=spec.get("zone"),
        zones=tuple(spec.get("zones", ())),
    )

"""Whether Karmada's typed conversion of a workload succeeds: ``helper.ConvertToTypedObject``
(k8s.io/apimachinery ``runtime.DefaultUnstructuredConverter.FromUnstructured``), which the
image overrider runs before it reads the containers of a Pod, ReplicaSet, Deployment,
DaemonSet, StatefulSet or Job (by ``kind`` alone). A field of the wrong type fails it, and
with it Karmada's whole override for that cluster.

The converter's rules (``fromUnstructured``): null is the zero value; a string, bool or
integer field takes only its own JSON kind, except that an integer field takes an integral
float and silently wraps an integer past its range; a struct or map needs an object, a list
an array (unknown keys are ignored); a quantity, int-or-string or time field is decoded by its
own ``UnmarshalJSON`` from the value's JSON.

The types here hold the fields of ``k8s.io/api`` v0.35 that authors write (metadata, the
workloads' specs, the pod spec, containers, probes, lifecycle hooks, affinity, security
contexts, tolerations, the common volume sources). A field not listed is taken as anything:
Karmada may still fail on it where fedgate does not (the other volume sources, ephemeral
volumes, resource claims, status beyond the workloads' counters).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from webhook.base.quantity import QuantityError, parse_quantity

Type = Any
"""``"string" | "int" | "bool" | "quantity" | "intorstring" | "time" | "any"``, ``("map", T)``,
``("list", T)`` or a struct: a dict of JSON field names to types."""

S, I, B, Q, IOS, T, ANY = "string", "int", "bool", "quantity", "intorstring", "time", "any"  # noqa: E741


def _map(of: Type) -> Type:
    return ("map", of)


def _list(of: Type) -> Type:
    return ("list", of)


STRINGS = _list(S)
OBJECT_META = {
    **dict.fromkeys(("name", "generateName", "namespace", "selfLink", "uid"), S),
    "resourceVersion": S,
    "generation": I,
    "creationTimestamp": T,
    "deletionTimestamp": T,
    "deletionGracePeriodSeconds": I,
    "labels": _map(S),
    "annotations": _map(S),
    "ownerReferences": _list(
        {
            **dict.fromkeys(("apiVersion", "kind", "name", "uid"), S),
            "controller": B,
            "blockOwnerDeletion": B,
        }
    ),
    "finalizers": STRINGS,
    "managedFields": _list(
        {
            **dict.fromkeys(("manager", "operation", "apiVersion", "fieldsType"), S),
            "time": T,
            "subresource": S,
        }
    ),
}
LABEL_SELECTOR = {
    "matchLabels": _map(S),
    "matchExpressions": _list({"key": S, "operator": S, "values": STRINGS}),
}
PROBE_HTTP = {
    "path": S,
    "port": IOS,
    "host": S,
    "scheme": S,
    "httpHeaders": _list({"name": S, "value": S}),
}
PROBE = {
    "exec": {"command": STRINGS},
    "httpGet": PROBE_HTTP,
    "tcpSocket": {"port": IOS, "host": S},
    "grpc": {"port": I, "service": S},
    **dict.fromkeys(
        (
            "initialDelaySeconds",
            "timeoutSeconds",
            "periodSeconds",
            "successThreshold",
            "failureThreshold",
            "terminationGracePeriodSeconds",
        ),
        I,
    ),
}
SECCOMP = {"type": S, "localhostProfile": S}
SE_LINUX = dict.fromkeys(("user", "role", "type", "level"), S)
SECURITY_CONTEXT = {
    "capabilities": {"add": STRINGS, "drop": STRINGS},
    "privileged": B,
    "seLinuxOptions": SE_LINUX,
    "runAsUser": I,
    "runAsGroup": I,
    "runAsNonRoot": B,
    "readOnlyRootFilesystem": B,
    "allowPrivilegeEscalation": B,
    "procMount": S,
    "seccompProfile": SECCOMP,
}
KEY_REF = {"name": S, "key": S, "optional": B}
REQUIREMENTS = _list({"key": S, "operator": S, "values": STRINGS})
NODE_TERM = {"matchExpressions": REQUIREMENTS, "matchFields": REQUIREMENTS}
POD_TERM = {
    "labelSelector": LABEL_SELECTOR,
    "namespaces": STRINGS,
    "topologyKey": S,
    "namespaceSelector": LABEL_SELECTOR,
    "matchLabelKeys": STRINGS,
    "mismatchLabelKeys": STRINGS,
}
POD_AFFINITY = {
    "requiredDuringSchedulingIgnoredDuringExecution": _list(POD_TERM),
    "preferredDuringSchedulingIgnoredDuringExecution": _list(
        {"weight": I, "podAffinityTerm": POD_TERM}
    ),
}
AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": _list(NODE_TERM)},
        "preferredDuringSchedulingIgnoredDuringExecution": _list(
            {"weight": I, "preference": NODE_TERM}
        ),
    },
    "podAffinity": POD_AFFINITY,
    "podAntiAffinity": POD_AFFINITY,
}
ITEMS = _list({"key": S, "path": S, "mode": I})
VOLUME = {
    "name": S,
    "configMap": {"name": S, "items": ITEMS, "defaultMode": I, "optional": B},
    "secret": {"secretName": S, "items": ITEMS, "defaultMode": I, "optional": B},
    "emptyDir": {"medium": S, "sizeLimit": Q},
    "persistentVolumeClaim": {"claimName": S, "readOnly": B},
    "hostPath": {"path": S, "type": S},
}
HANDLER = {
    "exec": {"command": STRINGS},
    "httpGet": PROBE_HTTP,
    "tcpSocket": {"port": IOS, "host": S},
    "sleep": {"seconds": I},
}
CONTAINER = {
    "name": S,
    "image": S,
    "command": STRINGS,
    "args": STRINGS,
    "workingDir": S,
    "ports": _list({"name": S, "hostPort": I, "containerPort": I, "protocol": S, "hostIP": S}),
    "envFrom": _list(
        {
            "prefix": S,
            "configMapRef": {"name": S, "optional": B},
            "secretRef": {"name": S, "optional": B},
        }
    ),
    "env": _list(
        {
            "name": S,
            "value": S,
            "valueFrom": {
                "fieldRef": {"apiVersion": S, "fieldPath": S},
                "resourceFieldRef": {"containerName": S, "resource": S, "divisor": Q},
                "configMapKeyRef": KEY_REF,
                "secretKeyRef": KEY_REF,
            },
        }
    ),
    "resources": {
        "limits": _map(Q),
        "requests": _map(Q),
        "claims": _list({"name": S, "request": S}),
    },
    "restartPolicy": S,
    "volumeMounts": _list(
        {
            "name": S,
            "readOnly": B,
            "recursiveReadOnly": S,
            "mountPath": S,
            "subPath": S,
            "mountPropagation": S,
            "subPathExpr": S,
        }
    ),
    "livenessProbe": PROBE,
    "readinessProbe": PROBE,
    "startupProbe": PROBE,
    "lifecycle": {"postStart": HANDLER, "preStop": HANDLER, "stopSignal": S},
    "terminationMessagePath": S,
    "terminationMessagePolicy": S,
    "imagePullPolicy": S,
    "securityContext": SECURITY_CONTEXT,
    "stdin": B,
    "stdinOnce": B,
    "tty": B,
}
POD_SPEC = {
    "volumes": _list(VOLUME),
    "initContainers": _list(CONTAINER),
    "containers": _list(CONTAINER),
    "ephemeralContainers": _list({**CONTAINER, "targetContainerName": S}),
    "restartPolicy": S,
    "terminationGracePeriodSeconds": I,
    "activeDeadlineSeconds": I,
    "dnsPolicy": S,
    "nodeSelector": _map(S),
    "serviceAccountName": S,
    "serviceAccount": S,
    "automountServiceAccountToken": B,
    "nodeName": S,
    **dict.fromkeys(("hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace"), B),
    "securityContext": {
        "seLinuxOptions": SE_LINUX,
        "runAsUser": I,
        "runAsGroup": I,
        "runAsNonRoot": B,
        "supplementalGroups": _list(I),
        "fsGroup": I,
        "sysctls": _list({"name": S, "value": S}),
        "fsGroupChangePolicy": S,
        "seccompProfile": SECCOMP,
    },
    "imagePullSecrets": _list({"name": S}),
    "hostname": S,
    "subdomain": S,
    "affinity": AFFINITY,
    "schedulerName": S,
    "dnsConfig": {
        "nameservers": STRINGS,
        "searches": STRINGS,
        "options": _list({"name": S, "value": S}),
    },
    "tolerations": _list(
        {"key": S, "operator": S, "value": S, "effect": S, "tolerationSeconds": I}
    ),
    "hostAliases": _list({"ip": S, "hostnames": STRINGS}),
    "priorityClassName": S,
    "priority": I,
    "readinessGates": _list({"conditionType": S}),
    "runtimeClassName": S,
    "enableServiceLinks": B,
    "preemptionPolicy": S,
    "overhead": _map(Q),
    "topologySpreadConstraints": _list(
        {
            "maxSkew": I,
            "topologyKey": S,
            "whenUnsatisfiable": S,
            "labelSelector": LABEL_SELECTOR,
            "minDomains": I,
            "nodeAffinityPolicy": S,
            "nodeTaintsPolicy": S,
            "matchLabelKeys": STRINGS,
        }
    ),
    "setHostnameAsFQDN": B,
    "os": {"name": S},
    "hostUsers": B,
}
TEMPLATE = {"metadata": OBJECT_META, "spec": POD_SPEC}
ROLLING = {"maxUnavailable": IOS, "maxSurge": IOS}
STATUS: Mapping[str, Type] = {
    "Deployment": {
        **dict.fromkeys(
            (
                "observedGeneration",
                "replicas",
                "updatedReplicas",
                "readyReplicas",
                "availableReplicas",
                "unavailableReplicas",
                "terminatingReplicas",
                "collisionCount",
            ),
            I,
        )
    },
    "ReplicaSet": {
        **dict.fromkeys(
            (
                "replicas",
                "fullyLabeledReplicas",
                "readyReplicas",
                "availableReplicas",
                "terminatingReplicas",
                "observedGeneration",
            ),
            I,
        )
    },
    "StatefulSet": {
        **dict.fromkeys(
            (
                "observedGeneration",
                "replicas",
                "readyReplicas",
                "currentReplicas",
                "updatedReplicas",
                "availableReplicas",
                "collisionCount",
            ),
            I,
        ),
        "currentRevision": S,
        "updateRevision": S,
    },
}
"""The counters of the workloads' ``status`` (other kinds' status: any)."""
SPECS: Mapping[str, Type] = {
    "Pod": POD_SPEC,
    "ReplicaSet": {
        "replicas": I,
        "minReadySeconds": I,
        "selector": LABEL_SELECTOR,
        "template": TEMPLATE,
    },
    "Deployment": {
        "replicas": I,
        "selector": LABEL_SELECTOR,
        "template": TEMPLATE,
        "strategy": {"type": S, "rollingUpdate": ROLLING},
        "minReadySeconds": I,
        "revisionHistoryLimit": I,
        "paused": B,
        "progressDeadlineSeconds": I,
    },
    "DaemonSet": {
        "selector": LABEL_SELECTOR,
        "template": TEMPLATE,
        "updateStrategy": {"type": S, "rollingUpdate": ROLLING},
        "minReadySeconds": I,
        "revisionHistoryLimit": I,
    },
    "StatefulSet": {
        "replicas": I,
        "selector": LABEL_SELECTOR,
        "template": TEMPLATE,
        "volumeClaimTemplates": _list({"metadata": OBJECT_META}),
        "serviceName": S,
        "podManagementPolicy": S,
        "updateStrategy": {"type": S, "rollingUpdate": {"partition": I, "maxUnavailable": IOS}},
        "revisionHistoryLimit": I,
        "minReadySeconds": I,
        "persistentVolumeClaimRetentionPolicy": {"whenDeleted": S, "whenScaled": S},
        "ordinals": {"start": I},
    },
    "Job": {
        **dict.fromkeys(
            (
                "parallelism",
                "completions",
                "activeDeadlineSeconds",
                "backoffLimit",
                "backoffLimitPerIndex",
                "maxFailedIndexes",
                "ttlSecondsAfterFinished",
            ),
            I,
        ),
        "selector": LABEL_SELECTOR,
        "manualSelector": B,
        "template": TEMPLATE,
        "completionMode": S,
        "suspend": B,
        "podReplacementPolicy": S,
        "managedBy": S,
    },
}
"""The ``spec`` of each kind the image overrider converts."""

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2})", re.ASCII
)


def _time(text: str) -> bool:
    """``time.Parse(time.RFC3339, text)`` succeeds (the fields in range)."""
    found = _RFC3339.fullmatch(text)
    if found is None:
        return False
    year, month, day, hour, minute, second = (int(found.group(i)) for i in range(1, 7))
    zone = found.group(7)
    if zone != "Z" and not (int(zone[1:3]) < 24 and int(zone[4:6]) < 60):
        return False
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError:
        return False
    return True


def _json_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _custom(value: Any, kind: str) -> str | None:
    """A type decoded by its own ``UnmarshalJSON`` (from ``json.Marshal`` of the value)."""
    if kind == T:
        return None if isinstance(value, str) and _time(value) else "not an RFC 3339 time"
    if kind == IOS:
        if isinstance(value, str):
            return None
        integral = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        if _json_number(value) and integral and -(2**31) <= value < 2**31:
            return None
        return "not an int32 or a string"
    # Quantity: the quotes of a string dropped, then trimmed and parsed
    if isinstance(value, str):
        text = value.strip(" \t\n\r\v\f")
    elif _json_number(value):
        text = repr(value) if isinstance(value, float) else str(value)
    else:
        return "not a quantity"
    try:
        parse_quantity(text, as_kubernetes=True)
    except QuantityError:
        return "not a quantity"
    return None


def error(value: Any, of: Type, where: str = "") -> str | None:
    """Why ``value`` does not convert into ``of`` (None: it does)."""
    if value is None or of == ANY:
        return None
    if isinstance(of, dict):
        if not isinstance(value, dict):
            return f"{where or '/'}: cannot restore struct from a non-object"
        for key, field in of.items():
            found = error(value.get(key), field, f"{where}/{key}")
            if found is not None:
                return found
        return None
    if isinstance(of, tuple):
        container, element = of
        if container == "map":
            if not isinstance(value, dict):
                return f"{where}: cannot restore map from a non-object"
            items = list(value.items())
        else:
            if not isinstance(value, list):
                return f"{where}: cannot restore slice from a non-array"
            items = list(enumerate(value))
        for key, item in items:
            found = error(item, element, f"{where}/{key}")
            if found is not None:
                return found
        return None
    if of in (T, IOS, Q):
        found = _custom(value, of)
        return None if found is None else f"{where}: {found}"
    fits = {
        S: isinstance(value, str),
        B: isinstance(value, bool),
        I: (isinstance(value, int) and not isinstance(value, bool))
        or (isinstance(value, float) and value.is_integer()),
    }[of]
    return None if fits else f"{where}: cannot convert {type(value).__name__} to {of}"


def conversion_error(obj: Mapping[str, Any]) -> str | None:
    """Why Karmada's typed conversion of ``obj`` (one of ``SPECS``' kinds) fails, or None."""
    kind = obj.get("kind")
    shape = {
        "apiVersion": S,
        "kind": S,
        "metadata": OBJECT_META,
        "spec": SPECS.get(str(kind), ANY),
        "status": STATUS.get(str(kind), ANY),
    }
    return error(obj, shape)

"""Read app spec files into AppSpec values, reporting every problem of every file at once.

Only checks that need nothing but the file itself live here (types, names, enums, the
single-writer conflicts visible in one spec); checks against the bundle and across apps are in
``compiler/compile/validate.py``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from compiler.spec.model import (
    API_VERSION,
    KIND,
    AppSpec,
    Autoscaling,
    ClusterTarget,
    Failover,
    Override,
    Owner,
    Placement,
    Plaintext,
    Purge,
    ReplicaMode,
    Resources,
)
from webhook.errors import Finding, SpecError
from webhook.quantity import QuantityError, parse_quantity
from webhook.schema import DNS_LABEL, Checker
from webhook.yamlsource import YamlSyntaxError, parse_documents, read_text

SPEC_SUFFIXES = (".yaml", ".yml")
MAX_REPLICAS = 10_000

IMAGE = re.compile(
    r"^(?:[a-z0-9.-]+(?::[0-9]+)?/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*"
    r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$"
)
REGISTRY = re.compile(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(/[a-z0-9._-]+)*$")
TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
ENV_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")
POINTER = re.compile(r"^(/([^~/]|~[01])*)+$")

_TOP = ("apiVersion", "kind", "metadata", "spec")
_METADATA = ("name", "namespace")
_SPEC = (
    "tenant",
    "image",
    "replicas",
    "ports",
    "resources",
    "readinessProbe",
    "livenessProbe",
    "env",
    "envFrom",
    "placement",
    "overrides",
    "autoscaling",
    "failover",
    "stateful",
    "labels",
)
_PLACEMENT = ("clusters", "clusterLabels", "replicas", "weights")
_REPLICA_MODES = ("Divided", "Duplicated")
_OVERRIDE = (
    "clusters",
    "clusterLabels",
    "imageRegistry",
    "imageTag",
    "labels",
    "annotations",
    "args",
    "plaintext",
)
_AUTOSCALING = ("owner", "minReplicas", "maxReplicas", "targetCPUUtilizationPercentage")
_HPA_BOUNDS = _AUTOSCALING[1:]
_FAILOVER = ("purge", "tolerationSeconds", "gracePeriodSeconds")
OWNERS = ("git", "federated-hpa", "member-hpa")


def find_spec_files(paths: Iterable[Path]) -> list[Path]:
    """Spec files named by ``paths`` (directories searched recursively, hidden ones and
    symbolic links to directories skipped, as ``rglob`` does), sorted, deduplicated. A
    dangling symbolic link is kept, so reading it fails aloud: skipped, its apps would be
    pruned."""
    found: set[Path] = set()
    for path in paths:
        if path.is_dir():
            found.update(Path(os.path.join(path, name)) for name in _spec_names(str(path)))
        else:
            found.add(path)
    return sorted(found)


def _suffix(name: str) -> str:
    """``PurePath(name).suffix``."""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def _spec_names(root: str) -> list[str]:
    """The spec files below ``root``, relative to it: one ``scandir`` per directory (a
    thousand specs are listed in milliseconds; ``rglob`` took a ``stat`` per file)."""
    names: list[str] = []
    pending = [""]
    while pending:
        relative = pending.pop()
        try:
            entries = list(os.scandir(os.path.join(root, relative) if relative else root))
        except PermissionError:  # rglob skips what it may not read
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            child = f"{relative}/{entry.name}" if relative else entry.name
            try:
                if entry.is_dir():
                    if not entry.is_symlink():
                        pending.append(child)
                elif _suffix(entry.name) in SPEC_SUFFIXES and (entry.is_file() or _dangling(entry)):
                    names.append(child)
            except OSError:
                continue
    return names


def _dangling(entry: os.DirEntry[str]) -> bool:
    """A symbolic link whose target does not exist."""
    return entry.is_symlink() and not os.path.exists(entry.path)


def load_specs(files: Iterable[Path]) -> list[AppSpec]:
    """Every app of every file; raises SpecError with all findings of all files."""
    specs: list[AppSpec] = []
    findings: list[Finding] = []
    for file in files:
        try:
            text = read_text(file)
        except YamlSyntaxError as exc:
            findings.append(exc.finding)
            continue
        try:
            loaded = parse_specs(text, str(file))
        except SpecError as exc:
            findings.extend(exc.findings)
            continue
        specs.extend(loaded)
    if findings:
        raise SpecError(findings)
    return specs


def parse_specs(text: str, file: str) -> list[AppSpec]:
    """The apps in one file's text (several documents allowed); raises SpecError."""
    try:
        documents = parse_documents(text, file)
    except YamlSyntaxError as exc:
        raise SpecError([exc.finding]) from None
    if not documents:
        raise SpecError([Finding(file, 1, "", "no app spec in this file")])
    specs, findings = [], []
    for document in documents:
        checker = Checker(document)
        spec = _app(checker)
        findings.extend(checker.findings)
        if spec is not None:
            specs.append(spec)
    if findings:
        raise SpecError(findings)
    return specs


def _app(c: Checker) -> AppSpec | None:
    if not isinstance(c.document.data, dict):
        c.report((), "an app spec must be a mapping with apiVersion, kind, metadata and spec")
        return None
    if _foreign(c):
        return None
    c.mapping((), _TOP, required=_TOP)
    if c.get(("apiVersion",)) not in (None, API_VERSION):
        c.report(("apiVersion",), f"must be {API_VERSION}")
    if c.get(("kind",)) not in (None, KIND):
        c.report(("kind",), f"must be {KIND}")
    c.mapping(("metadata",), _METADATA, required=_METADATA)
    name = c.name(("metadata", "name"))
    namespace = c.name(("metadata", "namespace"))
    c.mapping(
        ("spec",),
        _SPEC,
        required=("tenant", "image", "placement"),
        elsewhere={key: "spec.placement" for key in _PLACEMENT if key not in _SPEC},
    )
    autoscaling = _autoscaling(c)
    replicas = _replicas(c, autoscaling.owner)
    spec = AppSpec(
        name=name or "",
        namespace=namespace or "",
        tenant=c.name(("spec", "tenant")) or "",
        image=c.string(("spec", "image"), pattern=IMAGE, hint=_IMAGE_HINT) or "",
        replicas=replicas,
        placement=_placement(c),
        ports=_ports(c),
        resources=_resources(c),
        readiness_probe=c.opaque(("spec", "readinessProbe")),
        liveness_probe=c.opaque(("spec", "livenessProbe")),
        env=_env(c),
        config_maps=_env_from(c, "configMaps"),
        secrets=_env_from(c, "secrets"),
        overrides=_overrides(c),
        autoscaling=autoscaling,
        failover=_failover(c),
        stateful=c.boolean(("spec", "stateful")),
        labels=c.string_map(("spec", "labels"), labels=True),
        origin=c.document,
    )
    return None if c.findings else spec


def _foreign(c: Checker) -> bool:
    """A Kubernetes object that is not an app spec (a Deployment under apps/): said once, rather
    than as every App field it lacks."""
    api_version, kind = c.get(("apiVersion",)), c.get(("kind",))
    data = c.document.data
    if api_version is None and kind is None and not {"metadata", "spec"} & set(data):
        # not a Kubernetes object at all (values.yaml, a bundle file copied here)
        keys = ", ".join(sorted(str(k) for k in data)[:5]) + (", ..." if len(data) > 5 else "")
        keys = keys or "none"
        c.report(
            (),
            f"this YAML has no apiVersion, kind, metadata or spec (its keys: {keys}): it is "
            f"not an app spec (apiVersion: {API_VERSION}, kind: {KIND}); keep only app specs "
            "under the spec directories",
        )
        return True
    if not isinstance(api_version, str) or api_version.startswith("fedgate.dev/"):
        return False
    c.report(
        (),
        f"this is a {kind if isinstance(kind, str) else 'object'} ({api_version}), not an app "
        f"spec (apiVersion: {API_VERSION}, kind: {KIND}); keep only app specs under the "
        "spec directories",
    )
    return True


_IMAGE_HINT = "write registry/repository:tag, e.g. registry.example.com/team/app:1.0"


def _replicas(c: Checker, owner: str) -> int | None:
    path = ("spec", "replicas")
    mode = c.get(path)
    if isinstance(mode, str) and mode in _REPLICA_MODES:
        c.report(
            path,
            f"is the replica count; {mode} is a value of spec.placement.replicas: "
            "did you mean to indent it under placement:?",
        )
        return None
    if owner != "git":
        if c.get(path) is not None:
            c.report(
                path,
                f"/spec/replicas is owned by {owner} (spec.autoscaling.owner); two writers may "
                "not claim one field: remove spec.replicas and bound the count with "
                "spec.autoscaling.minReplicas / maxReplicas",
            )
        return None
    return c.integer(path, default=1, minimum=0, maximum=MAX_REPLICAS)


def _target(c: Checker, path: tuple[str | int, ...], *, required: bool) -> ClusterTarget | None:
    has_names = c.get((*path, "clusters")) is not None
    has_labels = c.get((*path, "clusterLabels")) is not None
    if has_names and has_labels:
        c.report(path, "give clusters or clusterLabels, not both")
        return None
    if not has_names and not has_labels:
        if required:
            c.report(path, "give clusters (a list of names) or clusterLabels (labels to match)")
        return None
    if has_labels:
        labels = c.string_map((*path, "clusterLabels"), labels=True)
        if not labels:
            c.report((*path, "clusterLabels"), "must not be empty (that would mean every cluster)")
        return ClusterTarget(labels=labels)
    names = c.string_list((*path, "clusters"), item=DNS_LABEL, hint="not a cluster name")
    if not names and c.get((*path, "clusters")) == []:
        c.report((*path, "clusters"), "must name at least one cluster")
    return ClusterTarget(names=names)


def _placement(c: Checker) -> Placement:
    path = ("spec", "placement")
    c.mapping(path, _PLACEMENT)
    target = _target(c, path, required=c.get(path) is not None) or ClusterTarget()
    mode = cast(ReplicaMode, c.choice((*path, "replicas"), _REPLICA_MODES, default="Duplicated"))
    weights: dict[str, int] = {}
    raw = c.named_mapping((*path, "weights"))
    if raw and mode != "Divided":
        c.report((*path, "weights"), "weights apply only with replicas: Divided")
    for cluster in raw:
        weight = c.integer((*path, "weights", cluster), minimum=1)
        if weight is None:
            continue
        if target.names and cluster not in target.names:
            c.report(
                (*path, "weights", cluster),
                f"{cluster} is not in spec.placement.clusters [{', '.join(target.names)}]",
            )
            continue
        weights[cluster] = weight
    return Placement(target=target, replicas=mode, weights=weights)


def _ports(c: Checker) -> tuple[int, ...]:
    value = c.get(("spec", "ports"))
    if value is None:
        return ()
    if not isinstance(value, list):
        c.report(("spec", "ports"), "must be a list of port numbers")
        return ()
    ports = []
    for i in range(len(value)):
        port = c.integer(("spec", "ports", i), minimum=1, maximum=65535)
        if port is not None and port in ports:
            c.report(("spec", "ports", i), f"port {port} is listed twice")
        elif port is not None:
            ports.append(port)
    return tuple(ports)


def _quantities(c: Checker, path: tuple[str, ...]) -> dict[str, str]:
    value = c.named_mapping(path)
    out = {}
    for key, raw in value.items():
        try:
            if isinstance(raw, bool) or not isinstance(raw, str | int | float):
                raise QuantityError(f"{raw!r} is not a quantity (examples: 250m, 1, 512Mi)")
            parse_quantity(raw)
        except QuantityError as exc:
            c.report((*path, key), str(exc))
            continue
        out[key] = str(raw)
    return out


def _resources(c: Checker) -> Resources:
    c.mapping(("spec", "resources"), ("requests", "limits"))
    return Resources(
        requests=_quantities(c, ("spec", "resources", "requests")),
        limits=_quantities(c, ("spec", "resources", "limits")),
    )


def _env(c: Checker) -> dict[str, str]:
    path = ("spec", "env")
    value = c.named_mapping(path)
    env = {}
    for key, item in value.items():
        if not ENV_NAME.fullmatch(key):
            c.report((*path, key), f"{key!r} is not a valid environment variable name")
        elif not isinstance(item, str):
            # YAML reads 0755 as 493, 1.10 as 1.1 and 9090 as a number: only quotes keep
            # what was written, so every unquoted non-string is refused alike.
            c.report((*path, key), "must be a string (quote it)")
        else:
            env[key] = str(item)
    return env


def _env_from(c: Checker, key: str) -> tuple[str, ...]:
    c.mapping(("spec", "envFrom"), ("configMaps", "secrets"))
    return c.string_list(("spec", "envFrom", key), item=DNS_SUBDOMAIN, hint="not a valid name")


def _autoscaling(c: Checker) -> Autoscaling:
    path = ("spec", "autoscaling")
    c.mapping(path, _AUTOSCALING)
    owner = cast(Owner, c.choice((*path, "owner"), OWNERS, default="git"))
    if owner == "git":
        for key in _HPA_BOUNDS:
            if c.get((*path, key)) is not None:
                c.report((*path, key), "applies only with owner: federated-hpa or member-hpa")
        return Autoscaling(owner="git")
    if c.get((*path, "maxReplicas")) is None:
        c.report(path, f"maxReplicas is required with owner: {owner}")
    minimum = c.integer((*path, "minReplicas"), default=1, minimum=1, maximum=MAX_REPLICAS)
    maximum = c.integer((*path, "maxReplicas"), minimum=1, maximum=MAX_REPLICAS)
    if minimum is not None and maximum is not None and maximum < minimum:
        c.report((*path, "maxReplicas"), f"must be at least minReplicas ({minimum})")
    target = c.integer(
        (*path, "targetCPUUtilizationPercentage"), default=80, minimum=1, maximum=100
    )
    return Autoscaling(owner, minimum or 1, maximum, target or 80)


def _failover(c: Checker) -> Failover | None:
    path = ("spec", "failover")
    if c.get(path) is None:
        return None
    c.mapping(path, _FAILOVER)
    purge = cast(
        Purge, c.choice((*path, "purge"), ("graceful", "direct", "never"), default="graceful")
    )
    toleration = c.integer((*path, "tolerationSeconds"), default=300, minimum=0)
    grace = c.integer((*path, "gracePeriodSeconds"), minimum=1)
    if purge != "graceful" and c.get((*path, "gracePeriodSeconds")) is not None:
        c.report(
            (*path, "gracePeriodSeconds"),
            f"applies only with purge: graceful (Karmada rejects gracePeriodSeconds with "
            f"purgeMode {Failover(purge=purge).purge_mode}); remove it",
        )
        grace = None
    if purge == "graceful" and grace is None:
        grace = 600  # Karmada's webhook default, emitted so Argo CD sees no drift
    return Failover(purge, 300 if toleration is None else toleration, grace)


def _overrides(c: Checker) -> tuple[Override, ...]:
    value = c.get(("spec", "overrides"))
    if value is None:
        return ()
    if not isinstance(value, list):
        c.report(("spec", "overrides"), "must be a list")
        return ()
    return tuple(_override(c, ("spec", "overrides", i)) for i in range(len(value)))


def _override(c: Checker, path: tuple[str | int, ...]) -> Override:
    raw = c.mapping(path, _OVERRIDE)
    override = Override(
        target=_target(c, path, required=False),
        image_registry=c.string(
            (*path, "imageRegistry"),
            pattern=REGISTRY,
            hint="a registry host such as mirror.example.cn",
        ),
        image_tag=c.string((*path, "imageTag"), pattern=TAG, hint="not a valid image tag"),
        labels=c.string_map((*path, "labels"), labels=True),
        annotations=c.string_map((*path, "annotations")),
        args=c.string_list((*path, "args"), unique=False),
        plaintext=_plaintext(c, (*path, "plaintext")),
    )
    if not (set(raw) - {"clusters", "clusterLabels"}):
        c.report(path, "this override changes nothing: add imageRegistry, labels, ...")
    return override


def _plaintext(c: Checker, path: tuple[str | int, ...]) -> tuple[Plaintext, ...]:
    value = c.get(path)
    if value is None:
        return ()
    if not isinstance(value, list):
        c.report(path, "must be a list of {path, operator, value}")
        return ()
    out = []
    for i in range(len(value)):
        item = (*path, i)
        c.mapping(item, ("path", "operator", "value"), required=("path", "operator"))
        pointer = c.string((*item, "path"), pattern=POINTER, hint="a JSON pointer like /spec/x")
        operator = c.choice((*item, "operator"), ("add", "remove", "replace"))
        operand: Any = c.get((*item, "value"))
        if operator == "remove" and operand is not None:
            c.report((*item, "value"), "must be absent with operator: remove")
        if operator in ("add", "replace") and operand is None:
            c.report(item, f"value is required with operator: {operator}")
        if pointer and operator:
            out.append(Plaintext(pointer, cast(Any, operator), operand))
    return tuple(out)

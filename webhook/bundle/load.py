"""Build a Bundle from the files of a ``policies/`` directory, reporting every error at once.

``read_source`` is the only I/O; ``bundle_from_source`` and ``build_bundle`` are pure.
Layout (documented in docs/bundle.md): ``clusters.yaml``, ``tenants.yaml``, ``writers.yaml``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from webhook.base.errors import BundleError, Finding, describe_os_error
from webhook.base.quantity import QuantityError, parse_quantity
from webhook.base.schema import Checker
from webhook.base.yamlsource import Document, YamlSyntaxError, parse_single, read_text
from webhook.bundle.exceptions import (
    EXCEPTIONS_DIRECTORY,
    Known,
    load_exceptions,
)
from webhook.bundle.index import INDEX_FILES, TreeIndex, parse_index
from webhook.bundle.load_rules import RULE_FILES, load_rules
from webhook.bundle.model import (
    DATA_KINDS,
    DEFAULT_KARMADA_COMPONENTS,
    KARMADA_COMPONENTS,
    LEDGER_OWNERS,
    PURGE_MODES,
    Allocatable,
    ArgoCD,
    Bundle,
    Cluster,
    ControlPlane,
    OwnerBinding,
    PolicyException,
    Quota,
    Tenant,
    Writer,
)
from webhook.bundle.rules import Rule
from webhook.bundle.source import BundleSource
from webhook.bundle.vap import VAP_DIRECTORY, load_vaps
from webhook.engine.cel import Backend, make_backend
from webhook.engine.cel.engines import DEFAULT_BACKEND
from webhook.engine.celrules import clusters_variable, tenant_variable
from webhook.engine.celruntime import CelRuntime
from webhook.karmada.selector import candidate_clusters

BUNDLE_FILES = ("clusters.yaml", "tenants.yaml", "writers.yaml")
OPTIONAL_FILES = ("argocd.yaml", "karmada.yaml")
REQUIRED_WRITERS = ("git", "karmada")

_CLUSTER_KEYS = (
    "name",
    "labels",
    "provider",
    "region",
    "zone",
    "zones",
    "allocatable",
    "failoverHeadroom",
)
_TENANT_KEYS = (
    "name",
    "namespaces",
    "groups",
    "clusters",
    "dataScope",
    "registries",
    "quota",
    "maxReplicasPerApp",
)
_WRITER_KEYS = ("name", "usernames", "usernamePrefixes", "groups", "description")
_OWNER_KEYS = ("writer", "usernames", "description")
RULES_DIRECTORY = "rules"
_EXTRA_SECTIONS = {"writers": ("ledgerOwners", "karmadaComponents")}
_COMPONENT_KEYS = ("usernames", "usernamePrefixes", "groups", "description")


FLAT_SEPARATOR = "__"
"""A flat bundle (a ConfigMap mounted as files) writes ``rules/x/rule.yaml`` as
``rules__x__rule.yaml``: ConfigMap keys cannot hold ``/``."""


def read_source(directory: Path, *, index: bool = True) -> BundleSource:
    """Read the bundle's files under ``directory`` (the only I/O of bundle loading), laid out
    as folders or flat (see FLAT_SEPARATOR); with ``index``, the index of the synced tree too
    (the compiler, which has the tree itself, does without)."""
    rules = directory / RULES_DIRECTORY
    flat = not rules.is_dir()
    if flat:
        pattern = f"{RULES_DIRECTORY}{FLAT_SEPARATOR}*{FLAT_SEPARATOR}*"
        folders = tuple(sorted({p.name.split(FLAT_SEPARATOR)[1] for p in directory.glob(pattern)}))
    else:
        folders = tuple(sorted(p.name for p in rules.iterdir() if p.is_dir()))
    files: dict[str, str] = {}
    unreadable: list[Finding] = []
    if flat:
        vaps = sorted(
            f"{VAP_DIRECTORY}/{p.name.split(FLAT_SEPARATOR, 1)[1]}"
            for p in directory.glob(f"{VAP_DIRECTORY}{FLAT_SEPARATOR}*")
            if p.suffix in (".yaml", ".yml")
        )
    else:
        vaps = sorted(
            p.relative_to(directory).as_posix()
            for p in (directory / VAP_DIRECTORY).rglob("*")
            if p.suffix in (".yaml", ".yml") and p.is_file()
        )
    names = [
        *BUNDLE_FILES,
        *_exception_files(directory, flat),
        *OPTIONAL_FILES,
        *(f"{RULES_DIRECTORY}/{f}/{n}" for f in folders for n in RULE_FILES),
        *vaps,
    ]
    for name in names:
        path = directory / (name.replace("/", FLAT_SEPARATOR) if flat else name)
        if not path.exists():
            continue  # reported as missing when the bundle is built
        try:
            files[name] = read_text(path)
        except YamlSyntaxError as exc:
            unreadable.append(exc.finding)
    found = _read_index(directory) if index else None
    if isinstance(found, Finding):
        unreadable.append(found)
        found = None
    return BundleSource(
        str(directory),
        files,
        folders,
        tuple(unreadable),
        tuple(v for v in vaps if v in files),
        found,
    )


def _exception_files(directory: Path, flat: bool) -> list[str]:
    """``exceptions/*.yaml`` (flat: ``exceptions__*.yaml``), relative to the bundle."""
    if flat:
        found = directory.glob(f"{EXCEPTIONS_DIRECTORY}{FLAT_SEPARATOR}*")
        names = (p.name.split(FLAT_SEPARATOR, 1)[1] for p in found)
    else:
        names = (p.name for p in (directory / EXCEPTIONS_DIRECTORY).glob("*") if p.is_file())
    return sorted(f"{EXCEPTIONS_DIRECTORY}/{n}" for n in names if n.endswith((".yaml", ".yml")))


def _read_index(directory: Path) -> tuple[str, bytes] | Finding | None:
    for name in INDEX_FILES:
        path = directory / name
        try:
            return name, path.read_bytes()
        except FileNotFoundError:
            continue
        except OSError as exc:
            return Finding(str(path), 0, "", f"cannot read: {describe_os_error(exc)}")
    return None


def load_bundle(
    directory: Path,
    backend: str | Backend = DEFAULT_BACKEND,
    *,
    proofs: bool = True,
    proofs_after: int = 0,
) -> Bundle:
    """Read, validate and compile the bundle in ``directory``; see ``bundle_from_source``."""
    return bundle_from_source(
        read_source(directory), backend, proofs=proofs, proofs_after=proofs_after
    )


def bundle_from_source(
    source: BundleSource,
    backend: str | Backend = DEFAULT_BACKEND,
    *,
    proofs: bool = True,
    proofs_after: int = 0,
    warn: bool = True,
) -> Bundle:
    """Validate and compile a bundle: the world (clusters, tenants, writers) and every rule
    under ``rules/``, CEL compiled once with ``backend``. Raises BundleError listing every
    problem of every file; a broken bundle never loads. ``proofs``: prove rules in Python where
    they are in the subset of CEL it translates (``engine.cel.proof``); off, the engine
    evaluates every expression. ``proofs_after``: build the proofs only once that many requests
    have been reviewed (``CelRuntime``; 0: now). ``warn``: find what the backend warns of
    (``Bundle.warnings``); a caller that shows none (compile) skips it, and with it importing
    cel-python's checks."""
    documents: dict[str, Document] = {}
    findings: list[Finding] = list(source.unreadable)
    for name in (*BUNDLE_FILES, *OPTIONAL_FILES):
        if name not in source.files:
            if name in BUNDLE_FILES:
                findings.append(
                    Finding(source.display(name), 0, "", f"missing: a bundle needs {name}")
                )
            continue
        try:
            documents[name] = parse_single(source.files[name], source.display(name))
        except YamlSyntaxError as exc:
            findings.append(exc.finding)
    if findings:
        raise BundleError(findings)
    engine = make_backend(backend) if isinstance(backend, str) else backend
    found: list[Finding] = []
    warnings = found if warn else None
    rules, compiled, rule_findings = load_rules(source, engine, warnings)
    vap_rules, vap_compiled, vap_findings, namespaces = load_vaps(source, engine, warnings)
    rules = tuple(sorted((*rules, *vap_rules), key=lambda r: r.id))
    compiled = {**compiled, **vap_compiled}
    rule_findings += vap_findings
    try:
        world = build_bundle(documents, source=source.root)
    except BundleError as exc:
        raise BundleError([*exc.findings, *rule_findings]) from None
    index: TreeIndex | None = None
    if source.index is not None:
        name, data = source.index
        index, index_findings = parse_index(data, source.display(name))
        rule_findings += index_findings
    exceptions, exception_findings = _exceptions(source, world, rules)
    rule_findings += exception_findings
    if rule_findings:
        raise BundleError(rule_findings)
    return replace(
        world,
        index=index,
        exceptions=exceptions,
        rules=rules,
        compiled=compiled,
        backend=engine,
        warnings=tuple(found),
        cel_runtime=CelRuntime(
            engine,
            rules,
            clusters=clusters_variable(world),
            tenants={name: tenant_variable(t) for name, t in world.tenants.items()},
            proofs=proofs,
            proofs_after=proofs_after,
            namespaces=namespaces,
        ),
    ).indexed()


def _exceptions(
    source: BundleSource, world: Bundle, rules: tuple[Rule, ...]
) -> tuple[tuple[PolicyException, ...], list[Finding]]:
    files = {
        name: text
        for name, text in source.files.items()
        if name.startswith(f"{EXCEPTIONS_DIRECTORY}/")
    }
    known = Known(
        rules=frozenset(r.id for r in rules),
        clusters=frozenset(world.clusters),
        writers=frozenset(w.name for w in world.writers),
    )
    return load_exceptions(files, {name: source.display(name) for name in files}, known)


def build_bundle(documents: Mapping[str, Document], source: str = "<memory>") -> Bundle:
    """The Bundle described by parsed ``clusters.yaml``, ``tenants.yaml`` and ``writers.yaml``."""
    checkers = {name: Checker(documents[name]) for name in BUNDLE_FILES}
    clusters = _clusters(checkers["clusters.yaml"])
    tenants = _tenants(checkers["tenants.yaml"], clusters)
    writers = _writers(checkers["writers.yaml"])
    owners = _owners(checkers["writers.yaml"], writers)
    components = _karmada_components(checkers["writers.yaml"])
    _karmada_users_have_components(checkers["writers.yaml"], writers, components)
    argocd = None
    if "argocd.yaml" in documents:
        checkers["argocd.yaml"] = Checker(documents["argocd.yaml"])
        argocd = _argocd(checkers["argocd.yaml"])
    karmada = ControlPlane()
    if "karmada.yaml" in documents:
        checkers["karmada.yaml"] = Checker(documents["karmada.yaml"])
        karmada = _control_plane(checkers["karmada.yaml"], clusters)
    findings = [f for checker in checkers.values() for f in checker.findings]
    if findings:
        raise BundleError(findings)
    return Bundle(
        clusters=clusters,
        tenants=tenants,
        writers=writers,
        owners=owners,
        karmada_components=components,
        argocd=argocd,
        karmada=karmada,
        source=source,
    )


def _entries(checker: Checker, key: str) -> list[int]:
    checker.mapping((), (key, *_EXTRA_SECTIONS.get(key, ())), required=(key,))
    value = checker.get((key,))
    if value is not None and not isinstance(value, list):
        checker.report((key,), "must be a list")
        return []
    return list(range(len(value or ())))


def _unique_name(checker: Checker, path: tuple[str | int, ...], seen: set[str]) -> str | None:
    name = checker.name((*path, "name"))
    if name is not None and name in seen:
        checker.report((*path, "name"), f"{name!r} is defined twice")
        return None
    if name is not None:
        seen.add(name)
    return name


def _clusters(checker: Checker) -> dict[str, Cluster]:
    clusters: dict[str, Cluster] = {}
    for index in _entries(checker, "clusters"):
        path = ("clusters", index)
        checker.mapping(path, _CLUSTER_KEYS, required=("name",))
        name = _unique_name(checker, path, set(clusters))
        if name is None:
            continue
        clusters[name] = Cluster(
            name=name,
            labels=checker.string_map((*path, "labels"), labels=True),
            provider=checker.string((*path, "provider")),
            region=checker.string((*path, "region")),
            zone=checker.string((*path, "zone")),
            zones=tuple(checker.string_list((*path, "zones"))),
            allocatable=_allocatable(checker, (*path, "allocatable")),
            failover_headroom=checker.integer((*path, "failoverHeadroom"), minimum=0, maximum=99),
        )
    return dict(sorted(clusters.items()))


def _allocatable(checker: Checker, path: tuple[str | int, ...]) -> Allocatable | None:
    """``allocatable: {cpu, memory, pods}``: what a member can hold (each optional)."""
    if checker.get(path) is None:
        return None
    checker.mapping(path, ("cpu", "memory", "pods"))
    values = _quantities(checker, path)
    return Allocatable(
        cpu=values.get("cpu"),
        memory=values.get("memory"),
        pods=checker.integer((*path, "pods"), minimum=0),
    )


def _cluster_set(
    checker: Checker, path: tuple[str | int, ...], clusters: Mapping[str, Cluster]
) -> frozenset[str] | None:
    """``{clusters: [...]}`` or ``{clusterLabels: {...}}`` resolved to cluster names."""
    spec = checker.mapping(path, ("clusters", "clusterLabels"))
    if ("clusters" in spec) == ("clusterLabels" in spec):
        checker.report(path, "give exactly one of clusters or clusterLabels")
        return None
    if "clusters" in spec:
        names = checker.string_list((*path, "clusters"))
        for i, name in enumerate(names):
            if name not in clusters:
                checker.report((*path, "clusters", i), _unknown_cluster(name, clusters))
        return frozenset(names)
    labels = checker.string_map((*path, "clusterLabels"), labels=True)
    return frozenset(candidate_clusters({"labelSelector": {"matchLabels": labels}}, clusters))


def _unknown_cluster(name: str, clusters: Mapping[str, Cluster]) -> str:
    return f"unknown cluster {name!r}; the inventory has {', '.join(clusters) or 'none'}"


def _tenants(checker: Checker, clusters: Mapping[str, Cluster]) -> dict[str, Tenant]:
    tenants: dict[str, Tenant] = {}
    namespace_owner: dict[str, str] = {}
    for index in _entries(checker, "tenants"):
        path = ("tenants", index)
        checker.mapping(path, _TENANT_KEYS, required=("name", "namespaces", "clusters"))
        name = _unique_name(checker, path, set(tenants))
        allowed = _allowed_clusters(checker, (*path, "clusters"), clusters)
        namespaces = checker.string_list((*path, "namespaces"))
        for i, namespace in enumerate(namespaces):
            if namespace in namespace_owner:
                checker.report(
                    (*path, "namespaces", i),
                    f"namespace {namespace!r} already belongs to {namespace_owner[namespace]!r}",
                )
            namespace_owner.setdefault(namespace, name or "?")
        if name is None:
            continue
        tenants[name] = Tenant(
            name=name,
            namespaces=namespaces,
            groups=checker.string_list((*path, "groups")),
            clusters=allowed,
            data_scope=_data_scope(checker, (*path, "dataScope"), clusters, allowed),
            registries=checker.string_list((*path, "registries")),
            quota=_quota(checker, (*path, "quota")),
            max_replicas_per_app=checker.integer((*path, "maxReplicasPerApp"), minimum=1),
        )
    return dict(sorted(tenants.items()))


def _allowed_clusters(
    checker: Checker, path: tuple[str | int, ...], clusters: Mapping[str, Cluster]
) -> frozenset[str]:
    names = checker.string_list(path)
    for i, cluster in enumerate(names):
        if cluster not in clusters:
            checker.report((*path, i), _unknown_cluster(cluster, clusters))
    return frozenset(names)


def _data_scope(
    checker: Checker,
    path: tuple[str | int, ...],
    clusters: Mapping[str, Cluster],
    allowed: frozenset[str],
) -> dict[str, frozenset[str]]:
    scope: dict[str, frozenset[str]] = {}
    for kind in checker.mapping(path, DATA_KINDS):
        if kind not in DATA_KINDS:
            continue
        names = _cluster_set(checker, (*path, kind), clusters)
        if names is None:
            continue
        outside = sorted(names - allowed) if checker.get((*path, kind, "clusters")) else []
        if outside:
            checker.report((*path, kind), f"{', '.join(outside)} not among the tenant's clusters")
        scope[kind] = names & allowed
    return scope


def _quota(checker: Checker, path: tuple[str | int, ...]) -> Quota:
    checker.mapping(path, ("cpu", "memory"))
    values = _quantities(checker, path)
    return Quota(cpu=values.get("cpu"), memory=values.get("memory"))


def _quantities(checker: Checker, path: tuple[str | int, ...]) -> dict[str, Fraction]:
    """The cpu and memory quantities under ``path`` (a quota, a cluster's allocatable); each
    that does not parse is reported where it is."""
    values = {}
    for key in ("cpu", "memory"):
        raw = checker.get((*path, key))
        if raw is None:
            continue
        try:
            values[key] = parse_quantity(raw)
        except QuantityError as exc:
            checker.report((*path, key), str(exc))
    return values


def _argocd(checker: Checker) -> ArgoCD | None:
    """``argocd.yaml``: where the rendered tree is and where Argo CD syncs it."""
    checker.mapping((), ("argocd",), required=("argocd",))
    path: tuple[str | int, ...] = ("argocd",)
    checker.mapping(
        path,
        ("namespace", "repoURL", "targetRevision", "path", "destination", "version", "tenantKinds"),
        required=("repoURL", "path", "destination"),
    )
    checker.mapping((*path, "destination"), ("name", "server"))
    name = checker.string((*path, "destination", "name"))
    server = checker.string((*path, "destination", "server"))
    if (name is None) == (server is None):
        checker.report((*path, "destination"), "give exactly one of name or server")
    repo = checker.string((*path, "repoURL"))
    where = checker.string((*path, "path"))
    if repo is None or where is None:
        return None
    return ArgoCD(
        namespace=checker.name((*path, "namespace"), default="argocd") or "argocd",
        repo_url=repo,
        target_revision=checker.string((*path, "targetRevision"), default="HEAD") or "HEAD",
        path=where.strip("/"),
        destination_name=name,
        destination_server=server,
        version=_argocd_version(checker, (*path, "version")),
        tenant_kinds=_tenant_kinds(checker, (*path, "tenantKinds")),
    )


_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")
OLDEST_ARGOCD = (2, 6, 0)
"""The oldest Argo CD whose sync and permission logic fedgate was checked against."""


def _argocd_version(checker: Checker, path: tuple[str | int, ...]) -> tuple[int, int, int] | None:
    text = checker.string(path, pattern=_VERSION, hint="an Argo CD release such as v2.11.3")
    found = _VERSION.fullmatch(text) if text else None
    if found is None:
        return None
    version = (int(found[1]), int(found[2]), int(found[3]))
    if version < OLDEST_ARGOCD:
        checker.report(path, f"{text!r}: fedgate supports Argo CD v2.6.0 and newer")
        return None
    return version


def _tenant_kinds(checker: Checker, path: tuple[str | int, ...]) -> tuple[tuple[str, str], ...]:
    items = checker.get(path)
    if items is None:
        return ()
    if not isinstance(items, list):
        checker.report(path, "must be a list of {group, kind}")
        return ()
    kinds: list[tuple[str, str]] = []
    for index in range(len(items)):
        entry = (*path, index)
        checker.mapping(entry, ("group", "kind"), required=("kind",))
        group = checker.get((*entry, "group"))
        if group is not None and not isinstance(group, str):
            checker.report((*entry, "group"), 'must be a string ("" for the core group)')
            group = None
        kind = checker.string((*entry, "kind"))
        if kind is not None and (group or "", kind) not in kinds:
            kinds.append((group or "", kind))
    return tuple(kinds)


def _owners(checker: Checker, writers: tuple[Writer, ...]) -> dict[str, OwnerBinding]:
    """``ledgerOwners``: for each owner a ledger may name, the writer that acts for it."""
    path: tuple[str | int, ...] = ("ledgerOwners",)
    raw = checker.mapping(path, LEDGER_OWNERS, required=LEDGER_OWNERS[:0])
    names = {w.name for w in writers}
    owners = {}
    for owner in LEDGER_OWNERS:
        if owner not in raw:
            checker.report(
                path,
                f"{owner} is missing: say which writer acts for it "
                "(or {} for nobody on the federation)",
            )
            continue
        checker.mapping((*path, owner), _OWNER_KEYS)
        writer = checker.string((*path, owner, "writer"))
        if writer is not None and writer not in names:
            checker.report((*path, owner, "writer"), f"unknown writer {writer!r}")
        owners[owner] = OwnerBinding(
            owner, writer, frozenset(checker.string_list((*path, owner, "usernames")))
        )
    return owners


def _karmada_components(checker: Checker) -> tuple[Writer, ...]:
    """``karmadaComponents``: which users each Karmada component is (as the karmada writer);
    absent, each component its own user as Karmada's hack/deploy-karmada.sh names them."""
    path: tuple[str | int, ...] = ("karmadaComponents",)
    if checker.get(path) is None:
        return DEFAULT_KARMADA_COMPONENTS
    raw = checker.mapping(path, KARMADA_COMPONENTS)
    components = []
    for name in KARMADA_COMPONENTS:
        if name not in raw:
            continue  # a component not installed, or one that never writes
        entry = (*path, name)
        checker.mapping(entry, _COMPONENT_KEYS)
        component = Writer(
            name=name,
            usernames=frozenset(checker.string_list((*entry, "usernames"))),
            username_prefixes=checker.string_list((*entry, "usernamePrefixes")),
            groups=frozenset(checker.string_list((*entry, "groups"))),
        )
        if not (component.usernames or component.username_prefixes or component.groups):
            checker.report(entry, "a component needs usernames, usernamePrefixes or groups")
        components.append(component)
    return tuple(components)


def _karmada_users_have_components(
    checker: Checker, writers: tuple[Writer, ...], components: tuple[Writer, ...]
) -> None:
    """A user the karmada writer names by name that no component names would write nothing
    (every write of it denied): the mistake that locks an install's Karmada out."""
    for index, writer in enumerate(writers):
        if writer.name != "karmada":
            continue
        for username in sorted(writer.usernames):
            if not any(c.matches(username, ()) for c in components):
                checker.report(
                    ("writers", index, "usernames"),
                    f"{username} is a karmada user no component of karmadaComponents names, "
                    "so it could write nothing: name it under its component (the "
                    "controller-manager, where one user serves every component)",
                )


def _writers(checker: Checker) -> tuple[Writer, ...]:
    writers: list[Writer] = []
    for index in _entries(checker, "writers"):
        path = ("writers", index)
        checker.mapping(path, _WRITER_KEYS, required=("name",))
        name = _unique_name(checker, path, {w.name for w in writers})
        if name is None:
            continue
        writer = Writer(
            name=name,
            usernames=frozenset(checker.string_list((*path, "usernames"))),
            username_prefixes=checker.string_list((*path, "usernamePrefixes")),
            groups=frozenset(checker.string_list((*path, "groups"))),
        )
        if not (writer.usernames or writer.username_prefixes or writer.groups):
            checker.report(path, "a writer needs usernames, usernamePrefixes or groups")
        writers.append(writer)
    names = {w.name for w in writers}
    for required in REQUIRED_WRITERS:
        if checker.get(("writers",)) is not None and required not in names:
            checker.report(("writers",), f"writer {required!r} is required")
    return tuple(writers)


_CONTROLLER_MANAGER_KEYS = (
    "featureGates",
    "enableTaintManager",
    "enableNoExecuteTaintEviction",
    "noExecuteTaintEvictionPurgeMode",
    "resourceEvictionRate",
    "gracefulEvictionTimeout",
    "clusterFailureThreshold",
    "clusterStatusUpdateFrequency",
    "rateLimiterQPS",
    "rateLimiterBucketSize",
)
_FEATURE_GATES = ("Failover",)
"""The gates that decide cluster failover (GracefulEviction does not: the graceful eviction
controller runs without it, and v1.18 reads it for application failover only)."""
_DURATION = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")
_TAINT_POLICY_KEYS = ("name", "targetClusters", "addOnConditions", "removeOnConditions", "taints")
_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _control_plane(checker: Checker, clusters: Mapping[str, Cluster]) -> ControlPlane:
    """``karmada.yaml``: the controller-manager's failover flags and the ClusterTaintPolicies,
    each absent value v1.18's default."""
    checker.mapping((), ("controllerManager", "clusterTaintPolicies"))
    path: tuple[str | int, ...] = ("controllerManager",)
    checker.mapping(path, _CONTROLLER_MANAGER_KEYS)
    checker.mapping((*path, "featureGates"), _FEATURE_GATES)
    default = ControlPlane()
    rate = checker.get((*path, "resourceEvictionRate"))
    if rate is not None and (isinstance(rate, bool) or not isinstance(rate, int | float)):
        checker.report((*path, "resourceEvictionRate"), "must be a number of evictions a second")
        rate = None
    elif rate is not None and rate < 0:
        checker.report((*path, "resourceEvictionRate"), f"must not be negative, not {rate}")
        rate = None
    return ControlPlane(
        failover_gate=checker.boolean((*path, "featureGates", "Failover"), default=False),
        enable_taint_manager=checker.boolean((*path, "enableTaintManager"), default=True),
        enable_no_execute_taint_eviction=checker.boolean(
            (*path, "enableNoExecuteTaintEviction"), default=False
        ),
        purge_mode=checker.choice(
            (*path, "noExecuteTaintEvictionPurgeMode"), PURGE_MODES, default=default.purge_mode
        )
        or default.purge_mode,
        resource_eviction_rate=float(rate) if rate is not None else default.resource_eviction_rate,
        graceful_eviction_timeout=_seconds(
            checker, (*path, "gracefulEvictionTimeout"), default.graceful_eviction_timeout
        ),
        cluster_failure_threshold=_seconds(
            checker, (*path, "clusterFailureThreshold"), default.cluster_failure_threshold
        ),
        cluster_status_update_frequency=_seconds(
            checker,
            (*path, "clusterStatusUpdateFrequency"),
            default.cluster_status_update_frequency,
            minimum=1,
        ),
        rate_limiter_qps=checker.integer(
            (*path, "rateLimiterQPS"), default=default.rate_limiter_qps, minimum=1
        )
        or default.rate_limiter_qps,
        rate_limiter_bucket_size=checker.integer(
            (*path, "rateLimiterBucketSize"), default=default.rate_limiter_bucket_size, minimum=1
        )
        or default.rate_limiter_bucket_size,
        taint_policies=_taint_policies(checker, clusters),
    )


def _seconds(
    checker: Checker, path: tuple[str | int, ...], default: int, *, minimum: int = 0
) -> int:
    """A duration as Go's flags write it (``10m``, ``30s``, ``1h30m``) or whole seconds."""
    raw = checker.get(path)
    if raw is None:
        return default
    if isinstance(raw, int) and not isinstance(raw, bool):
        seconds: int | None = raw
    else:
        found = _DURATION.fullmatch(raw) if isinstance(raw, str) and raw else None
        seconds = (
            int(found[1] or 0) * 3600 + int(found[2] or 0) * 60 + int(found[3] or 0)
            if found
            else None
        )
    if seconds is None:
        checker.report(path, f"{raw!r} is not a duration: write seconds or e.g. 30s, 10m, 1h30m")
        return default
    if seconds < minimum:
        checker.report(path, f"must be at least {minimum}s, not {seconds}s")
        return default
    return seconds


def _taint_policies(
    checker: Checker, clusters: Mapping[str, Cluster]
) -> tuple[Mapping[str, Any], ...]:
    """``clusterTaintPolicies``: each a ClusterTaintPolicy's ``spec`` and its ``name``, in the
    order Karmada applies them (their creation order)."""
    path: tuple[str | int, ...] = ("clusterTaintPolicies",)
    items = checker.get(path)
    if items is None:
        return ()
    if not isinstance(items, list):
        checker.report(path, "must be a list of ClusterTaintPolicy specs (with a name)")
        return ()
    policies = []
    for index in range(len(items)):
        entry = (*path, index)
        spec = checker.mapping(entry, _TAINT_POLICY_KEYS, required=("name", "taints"))
        checker.name((*entry, "name"))
        for key in ("addOnConditions", "removeOnConditions"):
            _conditions(checker, (*entry, key))
        taints = checker.get((*entry, "taints"))
        if taints is not None and (not isinstance(taints, list) or not taints):
            checker.report((*entry, "taints"), "must be a non-empty list of {key, effect, value}")
        for t in range(len(taints) if isinstance(taints, list) else 0):
            checker.mapping((*entry, "taints", t), ("key", "effect", "value"), required=("key",))
            checker.string((*entry, "taints", t, "key"))
            checker.choice((*entry, "taints", t, "effect"), _TAINT_EFFECTS)
            if checker.get((*entry, "taints", t, "effect")) is None:
                checker.report((*entry, "taints", t), "effect is required")
            checker.string((*entry, "taints", t, "value"), empty=True)
        target = checker.get((*entry, "targetClusters"))
        if target is not None and not isinstance(target, dict):
            checker.report((*entry, "targetClusters"), "must be a ClusterAffinity mapping")
        names = target.get("clusterNames") if isinstance(target, dict) else None
        for i, name in enumerate(names if isinstance(names, list) else []):
            if name not in clusters:
                checker.report(
                    (*entry, "targetClusters", "clusterNames", i),
                    _unknown_cluster(str(name), clusters),
                )
        if isinstance(spec, dict):
            policies.append(spec)
    return tuple(policies)


def _conditions(checker: Checker, path: tuple[str | int, ...]) -> None:
    items = checker.get(path)
    if items is None:
        return
    if not isinstance(items, list):
        checker.report(path, "must be a list of {conditionType, operator, statusValues}")
        return
    for index in range(len(items)):
        entry = (*path, index)
        checker.mapping(
            entry,
            ("conditionType", "operator", "statusValues"),
            required=("conditionType", "operator", "statusValues"),
        )
        checker.string((*entry, "conditionType"))
        checker.choice((*entry, "operator"), ("In", "NotIn"))
        checker.string_list((*entry, "statusValues"))

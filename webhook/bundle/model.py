"""The policy bundle as frozen values; ``load.py`` builds it from ``policies/`` and validates it."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeVar

from webhook.base.memo import Memo

if TYPE_CHECKING:
    from webhook.base.errors import Finding
    from webhook.bundle.index import TreeIndex
    from webhook.bundle.rules import Rule
    from webhook.engine.cel import Backend
    from webhook.engine.celruntime import CelRuntime, CompiledRule

DATA_KINDS = ("ConfigMap", "PersistentVolumeClaim", "Secret")
"""Kinds of tenant data whose placement the bundle scopes (``tenants[].dataScope``)."""

T = TypeVar("T")

MEMO_TABLE_BYTES = 4 * 1024 * 1024
"""Estimated bytes one memo table of a bundle holds (``webhook/base/memo.py``); past it, emptied."""
MEMO_ENTRY_BYTES = 512 * 1024
"""An entry estimated above this (a key carrying a huge text) is computed, never kept."""

LEDGER_OWNERS = ("git", "karmada", "federated-hpa", "member-hpa", "platform")
"""Who may own a field in an ownership ledger. ``federated-hpa`` acts through the karmada writer
(the controller-manager runs it); so does ``member-hpa``: the HPAs scale in the member clusters,
and on the federation the controller-manager's hpaScaleTargetMarker and
deploymentReplicasSyncer write their fields of the template (the retain label, the replicas)."""


@dataclass(frozen=True)
class Cluster:
    """A member cluster as Karmada selects it: labels, and the fields a fieldSelector reads."""

    name: str
    labels: Mapping[str, str]
    provider: str | None = None
    region: str | None = None
    zone: str | None = None
    zones: tuple[str, ...] = ()
    """A cluster spanning zones lists them all (Karmada's ``spec.zones``); ``zone`` is one."""
    allocatable: Allocatable | None = None
    """What the cluster can hold (``clusters[].allocatable``); None: not declared."""
    failover_headroom: int | None = None
    """Percent of its allocatable that should stay free when another cluster fails
    (``clusters[].failoverHeadroom``); None: no margin asked."""

    @property
    def all_zones(self) -> tuple[str, ...]:
        """Every zone of the cluster, as Karmada's ``matchZones`` reads ``spec.zones``."""
        return self.zones or ((self.zone,) if self.zone else ())

    def field(self, key: str) -> str | None:
        """The value of a ClusterAffinity fieldSelector key (provider, region or zone)."""
        return {"provider": self.provider, "region": self.region, "zone": self.zone}.get(key)


@dataclass(frozen=True)
class Allocatable:
    """Requested resources a member cluster can hold (each None: not declared)."""

    cpu: Fraction | None = None
    """Cores."""
    memory: Fraction | None = None
    """Bytes."""
    pods: int | None = None


PURGE_MODES = ("Directly", "Gracefully")
"""``--no-execute-taint-eviction-purge-mode`` values (karmada v1.18
``cmd/controller-manager/app/options/cluster_failover.go`` ``Validate``)."""


@dataclass(frozen=True)
class ControlPlane:
    """The Karmada control plane's failover settings (``policies/karmada.yaml``); each default
    is karmada-controller-manager v1.18's (``cmd/controller-manager/app/options``,
    ``pkg/features/features.go``)."""

    failover_gate: bool = False
    """Feature gate ``Failover`` (Beta, off by default): without it neither the taint manager
    nor the ClusterTaintPolicy controller runs, and nothing is evicted."""
    enable_taint_manager: bool = True
    """``--enable-taint-manager``."""
    enable_no_execute_taint_eviction: bool = False
    """``--enable-no-execute-taint-eviction``: the taint manager acts on NoExecute taints."""
    purge_mode: str = "Gracefully"
    """``--no-execute-taint-eviction-purge-mode``: for bindings without
    ``spec.failover.cluster``."""
    resource_eviction_rate: float = 0.5
    """``--resource-eviction-rate``: evictions a second, per eviction worker (0 halts them)."""
    graceful_eviction_timeout: int = 600
    """``--graceful-eviction-timeout`` in seconds: how long a Gracefully evicted copy is kept
    at most."""
    cluster_failure_threshold: int = 30
    """``--cluster-failure-threshold`` in seconds: failed probes before ``Ready`` turns False."""
    cluster_status_update_frequency: int = 10
    """``--cluster-status-update-frequency`` in seconds: how often the member is probed."""
    rate_limiter_qps: int = 10
    """``--rate-limiter-qps``: the default controller rate limiter's bucket refill."""
    rate_limiter_bucket_size: int = 100
    """``--rate-limiter-bucket-size``."""
    taint_policies: tuple[Mapping[str, Any], ...] = ()
    """ClusterTaintPolicies (``name`` and Karmada's ``spec`` fields), in creation order."""


@dataclass(frozen=True)
class Quota:
    """Requested resources a tenant may hold across all clusters (None: unlimited)."""

    cpu: Fraction | None = None
    memory: Fraction | None = None


@dataclass(frozen=True)
class Tenant:
    """An application team: where it may run, where its data may go, what it may pull and use."""

    name: str
    namespaces: tuple[str, ...]
    groups: tuple[str, ...]
    clusters: frozenset[str]
    data_scope: Mapping[str, frozenset[str]]
    registries: tuple[str, ...]
    quota: Quota = field(default_factory=Quota)
    max_replicas_per_app: int | None = None

    def data_clusters(self, kind: str) -> frozenset[str]:
        """Clusters that may receive this tenant's data of ``kind`` (its clusters if unscoped)."""
        return self.data_scope.get(kind, self.clusters)


@dataclass(frozen=True)
class Writer:
    """An identity class of the API server's ``userInfo``: matched by name, prefix or group."""

    name: str
    usernames: frozenset[str] = frozenset()
    username_prefixes: tuple[str, ...] = ()
    groups: frozenset[str] = frozenset()

    def matches(self, username: str, groups: frozenset[str] | tuple[str, ...]) -> bool:
        return (
            username in self.usernames
            or any(username.startswith(prefix) for prefix in self.username_prefixes)
            or not self.groups.isdisjoint(groups)
        )


@dataclass(frozen=True)
class OwnerBinding:
    """Who may write the fields a ledger gives to one owner: a writer, optionally only some of
    its usernames. ``writer`` None: nobody on the federation."""

    owner: str
    writer: str | None = None
    usernames: frozenset[str] = frozenset()

    def admits(self, writer: str, username: str) -> bool:
        return writer == self.writer and (not self.usernames or username in self.usernames)

    def describe(self, writers: tuple[Writer, ...]) -> str:
        """The identities behind this owner, for messages: usernames, prefixes, groups."""
        if self.writer is None:
            return "nobody on the federation"
        if self.usernames:
            return ", ".join(sorted(self.usernames))
        writer = next((w for w in writers if w.name == self.writer), None)
        if writer is None:
            return self.writer
        names = [
            *sorted(writer.usernames),
            *(p + "*" for p in writer.username_prefixes),
            *(f"group {g}" for g in sorted(writer.groups)),
        ]
        return ", ".join(names) or self.writer


KARMADA_COMPONENTS = (
    "controller-manager",
    "scheduler",
    "descheduler",
    "agent",
    "webhook",
    "search",
    "metrics-adapter",
    "scheduler-estimator",
    "aggregated-apiserver",
)
"""Karmada's components that reach the Karmada API server with a user of their own. What each
may write is Karmada's code and RBAC (``webhook/engine/components.py``); which user each is
depends on how Karmada was installed (``writers.yaml`` ``karmadaComponents``)."""

DEFAULT_KARMADA_COMPONENTS = (
    Writer("controller-manager", frozenset({"system:karmada:karmada-controller-manager"})),
    Writer("scheduler", frozenset({"system:karmada:karmada-scheduler"})),
    Writer("descheduler", frozenset({"system:karmada:karmada-descheduler"})),
    Writer(
        "agent",
        username_prefixes=("system:karmada:agent:",),
        groups=frozenset({"system:karmada:agents"}),
    ),
    Writer("webhook", frozenset({"system:karmada:karmada-webhook"})),
    Writer("search", frozenset({"system:karmada:karmada-search"})),
    Writer("metrics-adapter", frozenset({"system:karmada:karmada-metrics-adapter"})),
    Writer("scheduler-estimator", frozenset({"system:karmada:karmada-scheduler-estimator"})),
    Writer("aggregated-apiserver", frozenset({"system:karmada:karmada-aggregated-apiserver"})),
)
"""Each component its own user, as hack/deploy-karmada.sh (v1.18) signs their client
certificates (CN ``system:karmada:<component>``) and karmadactl register names a pull-mode
cluster's agent (CN ``system:karmada:agent:<cluster>``, O ``system:karmada:agents``): the
components of a bundle whose ``writers.yaml`` names none."""


def _names(rule: Rule, group: str, kind: str) -> bool:
    return bool({(group, kind), ("*", kind), (group, "*"), ("*", "*")} & rule.match.kinds)


@dataclass(frozen=True)
class PolicyException:
    """Rules lifted for what ``match`` selects, on the days before ``expires``. Each empty
    selector of the match (kinds, names, clusters, writers) selects everything; ``namespaces``
    is never empty. ``clusters``: only the copies bound for those members (``fedgate plan``),
    never the write at admission."""

    name: str
    rules: frozenset[str]
    namespaces: frozenset[str]
    expires: date
    reason: str
    owner: str
    kinds: frozenset[tuple[str, str]] = frozenset()
    names: frozenset[str] = frozenset()
    object_selector: Mapping[str, Any] | None = None
    clusters: frozenset[str] = frozenset()
    writers: frozenset[str] = frozenset()
    source: str = ""
    """``file:line`` of its definition, for messages."""

    def in_force(self, today: date) -> bool:
        return today < self.expires

    def days_left(self, today: date) -> int:
        """Days it still lifts rules (0: expired)."""
        return max((self.expires - today).days, 0)


@dataclass(frozen=True)
class ArgoCD:
    """Where the rendered tree lives and where Argo CD syncs it (``policies/argocd.yaml``)."""

    namespace: str
    repo_url: str
    target_revision: str
    path: str
    destination_name: str | None = None
    destination_server: str | None = None
    version: tuple[int, int, int] | None = None
    """The Argo CD release that syncs the tree, when the platform declares it."""
    tenant_kinds: tuple[tuple[str, str], ...] = ()
    """Namespaced (group, kind)s the tenants' AppProjects permit beyond what fedgate renders."""


@dataclass(frozen=True)
class Bundle:
    """Everything the compiler and the engine know of the platform; built once, never mutated."""

    clusters: Mapping[str, Cluster]
    tenants: Mapping[str, Tenant]
    writers: tuple[Writer, ...]
    owners: Mapping[str, OwnerBinding] = field(default_factory=dict)
    karmada_components: tuple[Writer, ...] = DEFAULT_KARMADA_COMPONENTS
    """Which Karmada component a user of the ``karmada`` writer is (a Writer named after it);
    the first that matches."""
    argocd: ArgoCD | None = None
    karmada: ControlPlane = field(default_factory=ControlPlane)
    """The control plane's failover settings (``policies/karmada.yaml``; v1.18's defaults)."""
    rules: tuple[Rule, ...] = ()
    compiled: Mapping[str, CompiledRule] = field(default_factory=dict)
    backend: Backend | None = None
    warnings: tuple[Finding, ...] = field(default=(), compare=False)
    """What loading found worth telling and not refusing: an expression the default CEL
    backend may refuse to evaluate on large requests (``RoutedBackend.load_warning``)."""
    source: str = "<memory>"
    cel_runtime: CelRuntime | None = field(default=None, compare=False, repr=False)
    index: TreeIndex | None = field(default=None, compare=False, repr=False)
    """The synced tree (``index.py``): what Git says of objects other than the one reviewed."""
    exceptions: tuple[PolicyException, ...] = ()
    """``exceptions/``: rules lifted for a few objects until a date (``exceptions.py``)."""
    today: date | None = None
    """The day exceptions are judged on, set by the shell that loaded the bundle (the CLI:
    today, or ``--today``); ``review``'s ``today`` argument comes first (the webhook's, per
    request). None: no exception lifts anything."""
    _rules_by_kind: Mapping[tuple[str, str], tuple[Rule, ...]] = field(
        default_factory=dict, compare=False, repr=False
    )
    _memo: dict[str, Memo[Hashable, Any]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def memo(self, table: str, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()`` once per key for this bundle: for pure functions of the bundle and a key
        that recurs across requests (who a user is, which rules a kind of request meets). Each
        table is bounded in bytes (``MEMO_TABLE_BYTES``), since keys come from requests. Not
        copied by ``replace``; a race between threads computes a value twice, harmlessly."""
        memo = self._memo.get(table)
        if memo is None:
            memo = self._memo.setdefault(table, Memo(MEMO_TABLE_BYTES, MEMO_ENTRY_BYTES))
        return memo.get(key, compute)  # type: ignore[no-any-return]

    def rules_for(self, group: str, kind: str) -> tuple[Rule, ...]:
        """The rules whose match names this kind (or any kind), in bundle order."""
        if not self._rules_by_kind:
            return self.rules
        return self._rules_by_kind.get((group, kind), self._rules_by_kind.get(("*", "*"), ()))

    def indexed(self) -> Bundle:
        """This bundle with its rules indexed by kind (done once, when it loads)."""
        kinds = {k for r in self.rules for k in r.match.kinds if "*" not in k}
        index = {key: tuple(r for r in self.rules if _names(r, *key)) for key in kinds}
        index[("*", "*")] = tuple(r for r in self.rules if any("*" in k for k in r.match.kinds))
        return replace(self, _rules_by_kind=index)

    def tenant_of_namespace(self, namespace: str) -> Tenant | None:
        for tenant in self.tenants.values():
            if namespace in tenant.namespaces:
                return tenant
        return None

    def karmada_component(self, username: str, groups: tuple[str, ...]) -> str | None:
        """The Karmada component ``username`` is, None for a user no component names."""
        found = (c.name for c in self.karmada_components if c.matches(username, groups))
        return next(found, None)

    def writer(self, name: str) -> Writer | None:
        return next((w for w in self.writers if w.name == name), None)

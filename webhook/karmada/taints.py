"""Cluster taints and a binding's tolerations, as Karmada v1.18's failover decides them.

Ported from karmada v1.18.2:

- ``pkg/controllers/taint/clustertaintpolicy_controller.go``: each ClusterTaintPolicy (in
  creation order) whose ``targetClusters`` selects the cluster (every cluster without one)
  adds its taints when every ``addOnConditions`` entry matches the cluster's conditions, then
  removes them when every ``removeOnConditions`` entry does (an empty list never matches);
- ``pkg/controllers/cluster/cluster_controller.go``: the cluster controller itself adds only
  ``NoSchedule`` taints (``cluster.karmada.io/not-ready``, ``.../unreachable``): they keep new
  scheduling away but evict nothing. NoExecute taints come from ClusterTaintPolicies only;
- ``pkg/util/helper/taint.go`` (``GetMatchingTolerations``, ``GetMinTolerationTime
  WithCurrentTime``) and Kubernetes' ``Toleration.ToleratesTaint`` (comparison operators off);
- ``pkg/controllers/cluster/taint_manager.go``: ``needEviction`` and ``getPurgeMode``.

Since v1.15 Karmada's webhook adds no default tolerations to a PropagationPolicy (the
``--default-not-ready-toleration-seconds`` / ``--default-unreachable-toleration-seconds``
flags, 300 s, were removed): a policy tolerates only what it says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webhook.bundle.model import Cluster
from webhook.karmada.selector import cluster_matches

NO_EXECUTE = "NoExecute"
NOT_READY = "cluster.karmada.io/not-ready"


@dataclass(frozen=True)
class Taint:
    """A taint on a Cluster; ``added``: seconds on the plan's clock it was added."""

    key: str
    effect: str
    value: str = ""
    added: float | None = None

    def describe(self) -> str:
        value = f"={self.value}" if self.value else ""
        return f"{self.key}{value}:{self.effect}"


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def tolerates(toleration: Mapping[str, Any], taint: Taint) -> bool:
    """Kubernetes' ``ToleratesTaint`` with comparison operators (Gt, Lt) disabled, as
    Karmada calls it."""
    effect, key = toleration.get("effect") or "", toleration.get("key") or ""
    if effect and effect != taint.effect:
        return False
    if key and key != taint.key:
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == taint.value
    return False


def matching_tolerations(
    taints: Sequence[Taint], tolerations: Sequence[Mapping[str, Any]]
) -> tuple[bool, list[Mapping[str, Any]]]:
    """``GetMatchingTolerations``: whether every taint is tolerated, and for each the first
    toleration that does."""
    if not taints:
        return True, []
    used = []
    for taint in taints:
        found = next((t for t in tolerations if tolerates(t, taint)), None)
        if found is None:
            return False, []
        used.append(found)
    return True, used


def min_toleration_time(
    taints: Sequence[Taint], used: Sequence[Mapping[str, Any]], now: float
) -> float | None:
    """``GetMinTolerationTimeWithCurrentTime``: seconds until the first used toleration with
    ``tolerationSeconds`` runs out on a taint it tolerates (0: now); None: tolerated forever
    (Go's -1), also when no taint has a time."""
    if not taints:
        return None
    if not used:
        return 0
    triggers = []
    for toleration in used:
        seconds = toleration.get("tolerationSeconds")
        if not isinstance(seconds, int) or isinstance(seconds, bool):
            continue
        for taint in taints:
            if taint.added is not None and tolerates(toleration, taint):
                triggers.append(taint.added + seconds)
    if not triggers:
        return None
    return max(0.0, min(triggers) - now)


def need_eviction(
    taints: Sequence[Taint], tolerations: Sequence[Mapping[str, Any]], now: float
) -> tuple[bool, float | None]:
    """``needEvictionWithCurrentTime`` once the taint manager is enabled: (evict now, else
    seconds until it is due; None: never)."""
    no_execute = [t for t in taints if t.effect == NO_EXECUTE]
    if not no_execute:
        return False, None
    tolerated, used = matching_tolerations(no_execute, tolerations)
    if not tolerated:
        return True, 0
    wait = min_toleration_time(no_execute, used, now)
    if wait == 0:
        return True, 0
    return False, wait


def purge_mode(failover: Any, default: str) -> str:
    """``getPurgeMode``: ``spec.failover.cluster.purgeMode`` (Gracefully when empty) when the
    policy has ``failover.cluster``, else the controller-manager's
    ``--no-execute-taint-eviction-purge-mode`` (Directly, or Gracefully for anything else)."""
    cluster = _mapping(failover).get("cluster")
    if isinstance(cluster, Mapping):
        return str(cluster.get("purgeMode") or "Gracefully")
    return "Directly" if default == "Directly" else "Gracefully"


def condition_matches(
    conditions: Mapping[str, str], match_conditions: Sequence[Mapping[str, Any]]
) -> bool:
    """``conditionMatches``: every entry matches (an empty list never does). ``conditions``:
    the cluster's condition type -> status."""
    if not match_conditions or not isinstance(match_conditions, Sequence):
        return False
    for match in match_conditions:
        if not isinstance(match, Mapping):
            return False  # Karmada's API refuses such a policy; it taints nothing
        kind = str(match.get("conditionType"))
        values = match.get("statusValues")
        values = values if isinstance(values, list) else []
        if kind not in conditions:
            return False
        operator = match.get("operator")
        if operator == "In":
            matched = conditions[kind] in values
        elif operator == "NotIn":
            matched = conditions[kind] not in values
        else:
            return False
        if not matched:
            return False
    return True


def policy_taints(
    cluster: Cluster,
    conditions: Mapping[str, str],
    policies: Sequence[Mapping[str, Any]],
    taints: Sequence[Taint] = (),
    now: float = 0,
) -> list[Taint]:
    """The cluster's taints after the ClusterTaintPolicy controller reconciles it with these
    ``conditions``: a policy's taint is added (``added`` = now) unless one with its key and
    effect is there, and removed by key and effect."""
    current = list(taints)
    for policy in policies:
        target = policy.get("targetClusters")
        if isinstance(target, Mapping) and not cluster_matches(cluster, target):
            continue
        listed = policy.get("taints")
        wanted = [
            Taint(str(t.get("key", "")), str(t.get("effect", "")), str(t.get("value") or ""))
            for t in (listed if isinstance(listed, list) else [])
            if isinstance(t, Mapping)
        ]
        if condition_matches(conditions, policy.get("addOnConditions") or []):
            current = add_taints(current, wanted, now)
        if condition_matches(conditions, policy.get("removeOnConditions") or []):
            current = remove_taints(current, wanted)
    return current


def add_taints(current: Sequence[Taint], wanted: Sequence[Taint], now: float) -> list[Taint]:
    """``addTaintsOnCluster``: each wanted taint without one of its key and effect is added
    at ``now``; one already there keeps its value and time."""
    out = list(current)
    for taint in wanted:
        if not any((c.key, c.effect) == (taint.key, taint.effect) for c in out):
            out.append(Taint(taint.key, taint.effect, taint.value, now))
    return out


def remove_taints(current: Sequence[Taint], unwanted: Sequence[Taint]) -> list[Taint]:
    """``removeTaintsFromCluster``: for each, the first taint of its key and effect goes."""
    out = list(current)
    for taint in unwanted:
        for index, present in enumerate(out):
            if (present.key, present.effect) == (taint.key, taint.effect):
                del out[index]
                break
    return out


def failed_cluster_taints(
    cluster: Cluster, policies: Sequence[Mapping[str, Any]], now: float
) -> list[Taint]:
    """A member whose API server stops answering: the cluster-status controller sets
    ``Ready=False``, the cluster controller adds ``not-ready:NoSchedule``, and the
    ClusterTaintPolicies add theirs."""
    scheduling = Taint(NOT_READY, "NoSchedule", "", now)
    return policy_taints(cluster, {"Ready": "False"}, policies, [scheduling], now)

"""The built-in rules (Python, not CEL): id -> check and what it matches.

Their bindings (``policies/rules/<id>/binding.yaml``) set the action and failure policy; what a
built-in rule matches is part of what it checks, so it is fixed here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from webhook.bundle.rules import Match, Rule
from webhook.engine import components, controllers, ownership, quota, retain, tenancy
from webhook.engine.context import Review
from webhook.engine.decision import Violation
from webhook.engine.targets import (
    autoscaler_target,
    member_copies,
    selector_reach,
    stateful_purge,
    takeover,
)
from webhook.engine.workloads import WORKLOAD_KINDS

Check = Callable[[Review, Rule], Iterable[Violation]]

ANY = frozenset({("*", "*")})
WRITES = frozenset({"CREATE", "UPDATE"})
POLICY = "policy.karmada.io"
PROPAGATION = frozenset({(POLICY, "PropagationPolicy"), (POLICY, "ClusterPropagationPolicy")})
OVERRIDE = frozenset({(POLICY, "OverridePolicy"), (POLICY, "ClusterOverridePolicy")})
CLUSTER_POLICIES = frozenset(
    {(POLICY, "ClusterPropagationPolicy"), (POLICY, "ClusterOverridePolicy")}
)
OBJECT_WRITES = frozenset({"", "status", "ephemeralcontainers"})
"""Where a write carries the whole object: itself, its status, a Pod's ephemeral containers."""
ALL_SUBRESOURCES = frozenset({*OBJECT_WRITES, "scale"})
AUTOSCALERS = frozenset(
    {
        ("autoscaling.karmada.io", "FederatedHPA"),
        ("autoscaling.karmada.io", "CronFederatedHPA"),
        ("autoscaling", "HorizontalPodAutoscaler"),
    }
)
WORK = "work.karmada.io"
BINDINGS = frozenset({(WORK, "ResourceBinding"), (WORK, "ClusterResourceBinding"), (WORK, "Work")})
"""What Karmada's controllers write from a template and its policy: what the members apply."""

BUILTINS: dict[str, tuple[Check, Match]] = {
    "ownership.field-owner": (
        ownership.check_field_owner,
        Match(ANY, WRITES, OBJECT_WRITES, "any"),
    ),
    "ownership.delete": (ownership.check_delete, Match(ANY, frozenset({"DELETE"}), scope="any")),
    "ownership.ledger-writer": (
        ownership.check_ledger_writer,
        Match(ANY, WRITES, OBJECT_WRITES, "any"),
    ),
    "ownership.status-subresource": (
        ownership.check_status_subresource,
        Match(ANY, frozenset({"UPDATE"}), frozenset({"status"}), "any"),
    ),
    "ownership.scale": (
        ownership.check_scale,
        Match(ANY, frozenset({"UPDATE"}), frozenset({"scale"}), "tenant"),
    ),
    "tenancy.namespace-writer": (
        tenancy.check_namespace_writer,
        Match(ANY, frozenset({"CREATE", "UPDATE", "DELETE"}), ALL_SUBRESOURCES, "tenant"),
    ),
    "tenancy.platform-namespace": (
        tenancy.check_platform_namespace,
        Match(ANY, frozenset({"CREATE", "UPDATE", "DELETE"}), ALL_SUBRESOURCES, "any"),
    ),
    "tenancy.placement-scope": (
        tenancy.check_placement_scope,
        Match(PROPAGATION, WRITES, scope="any"),
    ),
    "tenancy.explicit-selectors": (
        tenancy.check_explicit_selectors,
        Match(PROPAGATION | OVERRIDE, WRITES, scope="tenant"),
    ),
    "tenancy.data-scope": (tenancy.check_data_scope, Match(PROPAGATION, WRITES, scope="any")),
    "tenancy.propagate-deps": (
        tenancy.check_propagate_deps,
        Match(PROPAGATION, WRITES, scope="tenant"),
    ),
    "tenancy.cluster-policy": (
        tenancy.check_cluster_policy,
        Match(CLUSTER_POLICIES, frozenset({"CREATE", "UPDATE", "DELETE"}), scope="any"),
    ),
    "tenancy.conflict-overwrite": (
        tenancy.check_conflict_overwrite,
        Match(ANY, WRITES, scope="any"),
    ),
    "tenancy.override-registry": (
        tenancy.check_override_registry,
        Match(OVERRIDE, WRITES, scope="tenant"),
    ),
    "retain.replicas-label": (
        retain.check_replicas_label,
        Match(frozenset({("apps", "Deployment")}), WRITES, scope="any"),
    ),
    "retain.override-owned-field": (
        retain.check_override_owned_field,
        Match(OVERRIDE, WRITES, scope="any"),
    ),
    "overrides.member-copies": (
        member_copies.check_override_effects,
        Match(OVERRIDE, WRITES, scope="any"),
    ),
    "ownership.autoscaler-target": (
        autoscaler_target.check_autoscaler_target,
        Match(AUTOSCALERS, WRITES, scope="any"),
    ),
    "ownership.karmada-bindings": (
        ownership.check_karmada_bindings,
        Match(BINDINGS, frozenset({"CREATE", "UPDATE", "DELETE"}), OBJECT_WRITES, "any"),
    ),
    "ownership.karmada-component": (
        components.check_karmada_component,
        Match(ANY, frozenset({"CREATE", "UPDATE", "DELETE"}), ALL_SUBRESOURCES, "any"),
    ),
    "ownership.system-controller": (
        controllers.check_system_controller,
        Match(ANY, frozenset({"CREATE", "UPDATE", "DELETE"}), ALL_SUBRESOURCES, "any"),
    ),
    "tenancy.quota": (quota.check_quota, Match(WORKLOAD_KINDS, WRITES, scope="tenant")),
    "tenancy.takeover": (takeover.check_takeover, Match(PROPAGATION, WRITES, scope="any")),
    "tenancy.selector-reach": (
        selector_reach.check_selector_reach,
        Match(PROPAGATION, WRITES, scope="any"),
    ),
    "stateful-purge.targets": (
        stateful_purge.check_stateful_targets,
        Match(PROPAGATION, WRITES, scope="any"),
    ),
}

WRITER_RULES = frozenset(
    {
        "ownership.field-owner",
        "ownership.ledger-writer",
        "ownership.status-subresource",
        "ownership.karmada-bindings",
        "ownership.karmada-component",
        "ownership.system-controller",
        "ownership.scale",
        "ownership.delete",
        "tenancy.namespace-writer",
        "tenancy.platform-namespace",
        "tenancy.cluster-policy",
    }
)
"""The rules about who writes (which fields, in which namespace, as which component), not about
what the object contains: the only rules a write of its writer's own fields alone meets
(``ownfields.py``). Every CEL rule is about contents."""

"""Who writes to the live federation in the e2e tests, and what fedgate said to the control plane.

Shared by tests/e2e/test_federation.py and tests/e2e/test_kube_controllers.py: the tenant
identity the harness writes as, a cluster-admin binding to grant it, and the control-plane writes
fedgate denied over a run (read from its audit log)."""

from __future__ import annotations

import json
from typing import Any

from tests.e2e.conftest import ARGOCD, Federation

ALICE = "alice@example.com"
TEAM_A = ("team-a",)
# The users Argo CD and the harness act as; every other user writing is the control plane.
TEST_USERS = {ARGOCD[0], ALICE, "fedgate-e2e-admin"}


def cluster_admin(name: str, kind: str, subject: str) -> dict[str, Any]:
    """A ClusterRoleBinding of cluster-admin to ``subject`` (a User, Group or ServiceAccount)."""
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": name},
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "ClusterRole",
            "name": "cluster-admin",
        },
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": subject}],
    }


def control_plane_denials(federation: Federation) -> list[str]:
    """The audit records of control-plane writes fedgate denied, as JSON lines; asserts that
    fedgate was called and that the control plane reached it only as the layout says."""
    records = federation.audit()
    assert records, "the audit log is empty: fedgate was never called"
    control_plane = [r for r in records if r["user"] not in TEST_USERS]
    if federation.identities == "admin":  # system:admin is the operator too: reviewed
        assert control_plane, "no control-plane write reached fedgate"
    else:  # each component by its own name: matchConditions keep its writes from fedgate
        reached = [r for r in control_plane if str(r["user"]).startswith("system:karmada:")]
        assert not reached, f"Karmada's components waited on fedgate: {reached[:3]}"
    return [json.dumps(r) for r in control_plane if not r["allowed"]]

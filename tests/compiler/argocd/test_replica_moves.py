"""An app whose replicas move from git to an autoscaler: compile and check say what to clear
before Argo CD syncs it, whatever the Argo CD version."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compiler.argocd.replica_moves import ReplicaMove, replica_moves
from tests.helpers import git, run

NOTICE = (
    "notice: platform-demo/demo-http: /spec/replicas moves from git to federated-hpa. Before "
    "Argo CD syncs this, clear the replicas the live Deployment remembers in "
    "kubectl.kubernetes.io/last-applied-configuration"
)
COMMAND = (
    "kubectl --context karmada-apiserver apply set-last-applied -f "
    "rendered/platform-demo/demo-http/deployment.yaml"
)


def _autoscale(repo: Path) -> None:
    spec = repo / "apps" / "demo-http.yaml"
    text = spec.read_text().replace("  replicas: 6\n", "")
    text = re.sub(
        r"  autoscaling:\n(    .*\n)*",
        "  autoscaling: {owner: federated-hpa, minReplicas: 2, maxReplicas: 8}\n",
        text,
    )
    spec.write_text(text)


@pytest.mark.slow
def test_compile_and_check_say_what_to_clear(platform_repo: Path) -> None:
    repo = platform_repo
    _autoscale(repo)
    code, _, err = run(["compile"])
    assert code == 0
    assert NOTICE in err and COMMAND in err
    code, _, err = run(["check"])
    assert NOTICE in err and COMMAND in err
    # Once committed, the move is history: nothing more to say.
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "autoscale demo-http")
    assert "notice:" not in run(["compile"])[2]
    assert "notice:" not in run(["check"])[2]


def test_only_moves_from_git_to_an_autoscaler_count() -> None:
    def deployment(owner: str | None) -> bytes:
        ledger = "" if owner is None else f'{{"":"git","/spec/replicas":"{owner}"}}'
        annotations = f"  annotations:\n    fedgate.dev/ownership: '{ledger}'\n" if owner else ""
        return (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n  namespace: ns\n"
            + annotations
        ).encode()

    path = "ns/a/deployment.yaml"
    assert replica_moves({path: deployment("git")}, {path: deployment("member-hpa")}) == [
        ReplicaMove(path, "ns", "a", "git", "member-hpa")
    ]
    assert replica_moves({path: deployment("member-hpa")}, {path: deployment("git")}) == []
    assert replica_moves({path: deployment(None)}, {path: deployment("member-hpa")}) == []
    assert replica_moves({}, {path: deployment("member-hpa")}) == []
    assert replica_moves({path: b"[: not yaml"}, {path: deployment("member-hpa")}) == []

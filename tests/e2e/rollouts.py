"""The members' rollouts: what a member's kube-controller-manager and kubelets would report.

The harness's members are API servers alone: no controller ever writes a Deployment's or a
StatefulSet's status, so Karmada reads every member copy as unhealthy
(``pkg/resourceinterpreter/default/native/healthy.go``: ``observedGeneration`` behind the
generation, or fewer updated or available replicas than asked). An app whose policy has
``failover.application`` (orders-db: ``tolerationSeconds: 60``) is then evicted from each
cluster in turn a minute after it lands, which no real member with running pods would do.

``python -m tests.e2e.rollouts --member NAME=KUBECONFIG ...`` polls each member and writes the
status a finished rollout has onto every Deployment and StatefulSet whose spec (its generation)
it has seen unchanged for ``--rollout-seconds`` (default 20): a copy is unhealthy for that long
after it is created or changed, as during a real rollout, then healthy. A member that does not
answer (stopped by the failover test) is skipped until it does. The harness starts it with the
federation and ``down`` stops it by pid.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

KINDS = "deployments.apps,statefulsets.apps"


def finished(item: dict[str, Any]) -> dict[str, Any]:
    """The status of a rollout of ``item``'s current spec that has finished."""
    replicas = int(item.get("spec", {}).get("replicas", 1))
    status = {
        "observedGeneration": item["metadata"].get("generation", 1),
        "replicas": replicas,
        "updatedReplicas": replicas,
        "readyReplicas": replicas,
        "availableReplicas": replicas,
    }
    if item["kind"] == "StatefulSet":
        status["currentReplicas"] = replicas
    return status


def healthy(item: dict[str, Any]) -> bool:
    """Karmada's health interpretation of a Deployment or StatefulSet (healthy.go)."""
    status = item.get("status") or {}
    if status.get("observedGeneration") != item["metadata"].get("generation"):
        return False
    replicas = item.get("spec", {}).get("replicas")
    updated = int(status.get("updatedReplicas", 0))
    if replicas is not None and updated < int(replicas):
        return False
    return int(status.get("availableReplicas", 0)) >= updated


class Rollouts:
    def __init__(self, kubectl: str, members: dict[str, Path], rollout_seconds: float) -> None:
        self.kubectl = kubectl
        self.members = members
        self.rollout_seconds = rollout_seconds
        self.first_seen: dict[tuple[str, str, int], float] = {}

    def run(self, *args: str, member: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                self.kubectl,
                "--kubeconfig",
                str(self.members[member]),
                "--request-timeout=5s",
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )

    def poll(self, member: str, now: float) -> int:
        """Finish the rollouts due on ``member``; the number written."""
        listed = self.run("get", KINDS, "-A", "-o", "json", member=member)
        if listed.returncode != 0:
            return 0  # stopped or starting: nothing to do until it answers
        written = 0
        for item in json.loads(listed.stdout).get("items", []):
            meta = item["metadata"]
            key = (member, meta["uid"], int(meta.get("generation", 1)))
            seen = self.first_seen.setdefault(key, now)
            if healthy(item) or now - seen < self.rollout_seconds:
                continue
            patch = json.dumps({"status": finished(item)})
            kind = "deployment" if item["kind"] == "Deployment" else "statefulset"
            done = self.run(
                "patch",
                kind,
                meta["name"],
                "-n",
                meta["namespace"],
                "--subresource=status",
                "--type=merge",
                "-p",
                patch,
                member=member,
            )
            if done.returncode == 0:
                written += 1
                print(f"{member}: {meta['namespace']}/{meta['name']} rolled out", flush=True)
        return written

    def forever(self, interval: float) -> None:
        while True:
            now = time.monotonic()
            for member in self.members:
                self.poll(member, now)
            time.sleep(interval)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.e2e.rollouts", description=__doc__)
    parser.add_argument("--kubectl", required=True)
    parser.add_argument("--member", action="append", default=[], metavar="NAME=KUBECONFIG")
    parser.add_argument("--rollout-seconds", type=float, default=20.0)
    parser.add_argument("--interval", type=float, default=3.0)
    args = parser.parse_args(argv)
    members = dict(pair.split("=", 1) for pair in args.member)
    Rollouts(args.kubectl, {n: Path(p) for n, p in members.items()}, args.rollout_seconds).forever(
        args.interval
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

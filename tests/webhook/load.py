"""Requests and process readings the webhook's load tests share: a small review, a 2.5 MiB
one, a process's RSS and the children it has not reaped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import EXAMPLES

REQUESTS = EXAMPLES / "requests"
SMALL = json.loads((REQUESTS / "deployment-update-by-argocd-allowed.json").read_text())


def heavy_override(uid: str, overriders: int = 33_000) -> dict[str, Any]:
    """A dry-run OverridePolicy CREATE of about 2.5 MiB (33,000 plaintext overriders): a
    second or so of review on this machine."""
    document = json.loads((REQUESTS / "overridepolicy-create-allowed.json").read_text())
    document["request"]["uid"] = uid
    document["request"]["dryRun"] = True
    document["request"]["object"]["spec"]["overrideRules"][0]["overriders"] = {
        "plaintext": [
            {"path": f"/metadata/labels/k{i}", "operator": "replace", "value": "x" * 8}
            for i in range(overriders)
        ]
    }
    return document


def small(uid: str) -> dict[str, Any]:
    document = json.loads(json.dumps(SMALL))
    document["request"]["uid"] = uid
    return document


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def children(pid: int) -> list[int]:
    """The processes ``pid`` started and has not reaped (zombies included), over its threads."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found

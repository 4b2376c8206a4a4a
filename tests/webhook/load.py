"""Requests and process readings the webhook's load tests share: a small review, a process's
RSS and the children it has not reaped (the 2.5 MiB review is ``bench/webhook_heavy.py``'s)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import EXAMPLES

REQUESTS = EXAMPLES / "requests"
SMALL = json.loads((REQUESTS / "deployment-update-by-argocd-allowed.json").read_text())


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

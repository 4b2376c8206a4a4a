"""The live index at scale: memory held, and the time of one rebuild, for N templates.

N Deployments (the shape of examples/apps' web-frontend, each with its own name and labels) and
one PropagationPolicy each are fed, as JSON lists from the API server would be, through the
watcher (``webhook/shell/watch.py``: ``relist`` parses nothing itself, so each object is parsed here
with orjson as ``kubeapi.ApiServer.list`` does), then built into the index the engine reads.
Reports the Python heap the watcher holds (tracemalloc, after the build), the process RSS growth,
and the median time of a rebuild (what each burst of watch events costs, at most ten a second).

    .venv/bin/python bench/live_index.py [--templates 10000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import gc
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # bench/webhook.py would shadow the webhook package

from tests.webhook.livecase import hand_made, policy  # noqa: E402
from webhook.bundle.live import WATCHED  # noqa: E402
from webhook.shell.kubeapi import Keep, whole  # noqa: E402
from webhook.shell.watch import LiveIndex, Source  # noqa: E402


class Listed:
    """A fake API server answering each list with N objects, freshly parsed; no watch."""

    def __init__(self, templates: int) -> None:
        self.pages: dict[str, bytes] = {
            "/apis/apps/v1/deployments": orjson.dumps([_template(i) for i in range(templates)]),
            "/apis/policy.karmada.io/v1alpha1/propagationpolicies": orjson.dumps(
                [policy(f"app-{i}", f"app-{i}") for i in range(templates)]
            ),
        }

    def list(self, path: str, keep: Keep = whole) -> tuple[list[dict[str, Any]], str]:
        return [keep(o) for o in orjson.loads(self.pages.get(path, b"[]"))], "1"

    def watch(self, path: str, resource_version: str, seconds: int) -> Iterator[dict[str, Any]]:
        return iter(())


def _template(i: int) -> dict[str, Any]:
    made = hand_made(f"app-{i}")
    made["metadata"]["resourceVersion"] = str(i)
    made["metadata"]["annotations"] = {"fedgate.dev/ownership": '{"":"git","/status":"karmada"}'}
    made["metadata"]["managedFields"] = [{"manager": "argocd-controller", "fieldsV1": {}}]
    return made


def listed_and_built(source: Source) -> tuple[LiveIndex, list[Any]]:
    """A live index over ``source`` as a worker's first sync leaves it: every kind listed once,
    then built; with the list ``on_change`` appends each built index to (the first in it)."""
    built: list[Any] = []
    live = LiveIndex(source, git=None, on_change=built.append, stale_seconds=30)
    for state in live.kinds:
        live.relist(state)
    live.build()
    return live, built


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--templates", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    source = Listed(args.templates)
    gc.collect()
    before_rss = rss_mib()
    tracemalloc.start()
    live, built = listed_and_built(source)
    gc.collect()
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del built[:-1]
    times = []
    for _ in range(args.rounds):
        started = time.perf_counter()
        live.build()
        times.append(time.perf_counter() - started)
        del built[:-1]
    objects = sum(len(s.objects) for s in live.kinds)
    print(f"templates {args.templates}, objects held {objects} ({len(WATCHED)} kinds watched)")
    print(f"heap held by the watcher and its index: {held / 2**20:.1f} MiB")
    print(f"max RSS growth: {rss_mib() - before_rss:.1f} MiB")
    print(f"rebuild: median {statistics.median(times) * 1000:.0f} ms over {args.rounds}")


if __name__ == "__main__":
    main()

"""Benchmark: review time against ledger size (it once grew with the square of it).

    .venv/bin/python bench/ledger.py [--repeat 5]

Three requests per size, each with a ledger of N pointers (``/metadata/labels/k<i>`` owned by
the platform team) on a tenant's write: a Deployment UPDATE changing all N labels (every change
looks up the owners below it), an OverridePolicy CREATE whose N plaintext overriders each write
one of them (every written pointer looks up the target's ledger), and the same Deployment
UPDATE changing nothing the writer may not write. Prints the median seconds of ``review()``
per size and the time per pointer, which stays flat when review is linear. Ledgers past the
32 KiB cap are not read at all (a broken ledger: the write is judged against git's).
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # before bench/, whose webhook.py would shadow the package

from webhook.base.ledger import encode  # noqa: E402
from webhook.bundle.load import load_bundle  # noqa: E402
from webhook.engine.request import parse_review  # noqa: E402
from webhook.engine.review import review  # noqa: E402

REQUESTS = ROOT / "examples" / "requests"


def _ledger(entries: int) -> str:
    return encode({"": "git", **{f"/metadata/labels/k{i}": "platform" for i in range(entries)}})


def deployment_update(entries: int, changed: bool) -> dict[str, Any]:
    document = json.loads((REQUESTS / "deployment-edit-by-tenant-denied.json").read_text())
    document["request"]["object"]["spec"]["replicas"] = 6  # only the labels may differ
    for obj in (document["request"]["object"], document["request"]["oldObject"]):
        obj["metadata"]["annotations"]["fedgate.dev/ownership"] = _ledger(entries)
        obj["metadata"]["labels"].update({f"k{i}": "a" for i in range(entries)})
    if changed:
        labels = document["request"]["object"]["metadata"]["labels"]
        labels.update({f"k{i}": "b" for i in range(entries)})
    return document


def override_create(entries: int) -> dict[str, Any]:
    document = json.loads((REQUESTS / "overridepolicy-create-allowed.json").read_text())
    obj = document["request"]["object"]
    obj["metadata"]["annotations"]["fedgate.dev/target-ownership"] = _ledger(entries)
    obj["spec"]["overrideRules"][0]["overriders"] = {
        "plaintext": [
            {"path": f"/metadata/labels/k{i}", "operator": "replace", "value": "x"}
            for i in range(entries)
        ]
    }
    return document


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="64,128,256,500")
    args = parser.parse_args()
    bundle = load_bundle(ROOT / "policies")
    cases = {
        "Deployment UPDATE, N labels changed": lambda n: deployment_update(n, True),
        "OverridePolicy CREATE, N overriders": override_create,
        "Deployment UPDATE, nothing foreign changed": lambda n: deployment_update(n, False),
    }
    print(f"{'request':44} {'N':>5} {'KiB':>5} {'median s':>9} {'us / pointer':>12}")
    for label, build in cases.items():
        for entries in (int(n) for n in args.sizes.split(",")):
            document = build(entries)
            size = len(_ledger(entries)) / 1024
            times = []
            for _ in range(args.repeat):
                request = parse_review(copy.deepcopy(document))  # fresh: no per-request memo
                started = time.perf_counter()
                review(request, bundle)
                times.append(time.perf_counter() - started)
            median = statistics.median(times)
            print(
                f"{label:44} {entries:5d} {size:5.1f} {median:9.4f} {median / entries * 1e6:12.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()

"""Benchmark: microseconds per review() with the default bundle, and the share spent in CEL.

    .venv/bin/python bench/review.py [--iterations 3000]

Two requests, as the webhook sees them most: a Deployment UPDATE (the FederatedHPA scaling a
template: ownership diff, tenancy, and four CEL rules on a real object) and a
PropagationPolicy CREATE (tenancy placement and data scope, one CEL rule). For each CEL
backend it reports the median and p99 of review() alone on freshly parsed requests (as in the
webhook), and the same with CEL evaluation switched off, so the difference is CEL's share.
Both backends run in this one process, side by side, after a warm-up.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webhook.bundle.load import load_bundle  # noqa: E402
from webhook.engine.request import parse_review  # noqa: E402
from webhook.engine.review import review  # noqa: E402

REQUESTS = {
    "Deployment UPDATE": "deployment-replicas-by-federatedhpa-allowed.json",
    "PropagationPolicy CREATE": "propagationpolicy-create-allowed.json",
}


def timings(body: bytes, bundle: object, iterations: int) -> list[float]:
    """review() of a freshly parsed request each time, as the webhook sees them: reviewing one
    parsed request again and again flatters it (both CEL engines cache the converted object)."""
    requests = [parse_review(json.loads(body)) for _ in range(iterations)]
    samples = []
    for request in requests:
        start = time.perf_counter_ns()
        review(request, bundle)  # type: ignore[arg-type]
        samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def p99(samples: list[float]) -> float:
    return sorted(samples)[int(len(samples) * 0.99) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--iterations", type=int, default=3000)
    args = parser.parse_args()
    print(
        f"{'request':26} {'backend':11} {'median us':>10} {'p99 us':>9} "
        f"{'no-CEL median':>14} {'CEL share':>10}"
    )
    for backend in ("cel-expr", "cel-python"):
        bundle = load_bundle(ROOT / "policies", backend)
        without_cel = replace(bundle, rules=tuple(r for r in bundle.rules if r.builtin)).indexed()
        iterations = args.iterations if backend == "cel-expr" else max(args.iterations // 20, 50)
        for label, file in REQUESTS.items():
            body = (ROOT / "examples" / "requests" / file).read_bytes()
            decision = review(parse_review(json.loads(body)), bundle)
            assert decision.allowed, decision.message()
            timings(body, bundle, 50)  # warm-up
            full = timings(body, bundle, iterations)
            base = timings(body, without_cel, iterations)
            median, floor = statistics.median(full), statistics.median(base)
            print(
                f"{label:26} {backend:11} {median:10.0f} {p99(full):9.0f} {floor:14.0f} "
                f"{(median - floor) / median:10.0%}",
                flush=True,
            )


if __name__ == "__main__":
    main()

"""Where a review's instructions go, per request type, counted by callgrind (steady under load).

    .venv/bin/python bench/instructions.py [--iterations 10] [--only NAME] [--fixed] [--keep DIR]

Wall-clock time on this shared 2-core machine moves 2x from one minute to the next; the number
of instructions a batch of reviews executes does not. This script runs itself again under
``valgrind --tool=callgrind --instr-atstart=no`` and, in that one process, counts each part of
a request separately: it builds the inputs of a part outside the count (fresh parsed requests,
as the webhook sees them), turns instrumentation on around ``--iterations`` calls of that part
alone (in every thread: a thread pool's work counts),
and dumps the count under the part's name (callgrind's client requests, from a 20-line C helper
built with ``cc`` against valgrind's ``callgrind.h``). The table is instructions per request.

Parts, for each request type:

- ``floor (adapter)``: the allow-all floor of ``bench/webhook.py`` (Flask, orjson, echo the uid)
  behind ``webhook.shell.asgi.WsgiOnAsgi``, inline; ``fedgate (adapter)``: fedgate's app so.
  Their difference is what fedgate adds per request; gunicorn's HTTP parsing and TLS are the
  same for both and are not counted (they are not in this process). ``(adapter, 4 threads)``:
  the app handed to a thread pool as ``bench/webhook.py`` serves both (the floor plainly,
  fedgate with its time budget, as ``fedgate serve`` does): the handoff's instructions;
  callgrind runs one thread at a time, so not what it costs in waiting.
- ``parse``: orjson, the duplicate-key scan, ``parse_review`` and the depth limit (then each
  alone; ``depth limit, walked``: the walk the body's bracket count spares, as it runs on a
  body with more brackets than the limit).
- ``review``: ``review()`` with the shipped bundle; ``review, no rules``: with a bundle holding
  no rules (identity, tenancy, the request's admissibility, placement targets, the Decision);
  ``rule <id>``: what the rule adds, ``review`` minus ``review`` with a bundle without it (the
  CEL rules' share together, since they are proven or evaluated together, as ``CEL rules``).
- ``encode``: the AdmissionReview response and ``orjson.dumps``; ``metrics+audit``: the
  Prometheus counters and the audit line (rendered, not written).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import ctypes
import gc
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.webhook_heavy import heavy_override  # noqa: E402

REQUESTS = ROOT / "examples" / "requests"
HELPER = r"""
#include <valgrind/callgrind.h>
void fg_zero(void) { CALLGRIND_ZERO_STATS; }
void fg_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void fg_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
void fg_dump(const char *name) { CALLGRIND_DUMP_STATS_AT(name); }
int fg_running(void) { return RUNNING_ON_VALGRIND; }
"""


def status_update() -> dict[str, Any]:
    """Karmada's controller writing a Deployment's ``/status`` (the subresource): a trusted
    writer changing only its own fields, the most frequent write a member's copy sees."""
    document = json.loads((REQUESTS / "deployment-claim-by-karmada-allowed.json").read_text())
    request = document["request"]
    request["subResource"] = "status"
    request["oldObject"] = copy.deepcopy(request["object"])
    request["object"]["status"] = {
        "replicas": 3,
        "readyReplicas": 3,
        "updatedReplicas": 3,
        "availableReplicas": 3,
        "observedGeneration": 4,
    }
    return document


def _example(name: str) -> Callable[[], dict[str, Any]]:
    return lambda: json.loads((REQUESTS / name).read_text())


def labels_only() -> dict[str, Any]:
    """Argo CD writing a label on a Deployment, nothing else: a write that bills no new pod."""
    document = json.loads((REQUESTS / "deployment-update-by-argocd-allowed.json").read_text())
    request = document["request"]
    request["object"] = copy.deepcopy(request["oldObject"])
    request["object"]["metadata"].setdefault("labels", {})["release"] = "2026-12-02"
    return document


CASES: dict[str, Callable[[], dict[str, Any]]] = {
    "Deployment UPDATE": _example("deployment-replicas-by-federatedhpa-allowed.json"),
    "PropagationPolicy CREATE": _example("propagationpolicy-create-allowed.json"),
    "status update by Karmada": status_update,
    "Deployment UPDATE, a label by Argo CD": labels_only,
    "OverridePolicy CREATE": _example("overridepolicy-create-allowed.json"),
    "OverridePolicy, 1,000 overriders": lambda: json.loads(heavy_override("heavy", 1000)),
}


HEAVY = frozenset({"OverridePolicy, 1,000 overriders"})
"""Cases counted over a tenth of --iterations (at least 2). Their counts overstate the work
about tenfold against CPU time (most likely copying: valgrind counts glibc's large-memcpy
``rep movsb`` once per repeat); for large bodies compare times as well."""


class Counter:
    """callgrind's client requests from Python: zero, collect around a part, dump it by name."""

    def __init__(self, work: Path) -> None:
        source = work / "fg_callgrind.c"
        source.write_text(HELPER)
        library = work / "fg_callgrind.so"
        subprocess.run(
            ["cc", "-O1", "-shared", "-fPIC", "-o", str(library), str(source)], check=True
        )
        self.lib = ctypes.CDLL(str(library))
        self.lib.fg_dump.argtypes = [ctypes.c_char_p]

    def count(self, name: str, calls: int, part: Callable[[int], object]) -> None:
        for index in range(min(calls, 3)):  # warm: first calls fill caches and memos
            part(index)
        gc.collect()  # what is built so far out of the collector's way, as serve freezes the
        gc.freeze()  # bundle: else the batch pays for scanning every bundle copy made here
        self.lib.fg_start()
        self.lib.fg_zero()
        for index in range(calls):
            part(index)
        self.lib.fg_stop()
        self.lib.fg_dump(name.encode())


def measure(work: Path, iterations: int, only: str | None, fixed: bool = False) -> None:
    """In the process under callgrind: every part of every case, each dumped by name."""
    from bench.floor_app import create_app as floor_app  # noqa: PLC0415
    from webhook.bundle.load import load_bundle  # noqa: PLC0415
    from webhook.shell.app import create_app  # noqa: PLC0415
    from webhook.shell.asgi import WsgiOnAsgi  # noqa: PLC0415
    from webhook.shell.settings import Settings  # noqa: PLC0415

    counter = Counter(work)
    bundle = load_bundle(ROOT / "policies", "cel-expr")
    settings = Settings(audit_log=False)
    fedgate = create_app(bundle=bundle, settings=settings)
    apps = {
        "floor (adapter)": WsgiOnAsgi(floor_app(), settings.max_body_bytes),
        "fedgate (adapter)": WsgiOnAsgi(fedgate, settings.max_body_bytes),
        "floor (adapter, 4 threads)": WsgiOnAsgi(
            floor_app(), settings.max_body_bytes, executor=ThreadPoolExecutor(4)
        ),
        "fedgate (adapter, 4 threads)": WsgiOnAsgi(
            fedgate,
            settings.max_body_bytes,
            executor=ThreadPoolExecutor(4),
            review_seconds=settings.review_seconds,
        ),
    }
    for label, build in CASES.items():
        if not only or only in label:
            measure_case(
                counter,
                label,
                build(),
                bundle=bundle,
                apps=apps,
                iterations=iterations,
                fixed=fixed,
            )


def measure_case(
    counter: Counter,
    label: str,
    document: dict[str, Any],
    *,
    bundle: Any,
    apps: dict[str, Any],
    iterations: int,
    fixed: bool = False,
) -> None:
    """One request type's parts (module docstring), each counted on its own; with ``fixed``,
    not the rules' rows (each needs a bundle of its own, most of the run's time)."""
    import orjson  # noqa: PLC0415

    from webhook.base.jsontext import has_duplicate_keys  # noqa: PLC0415
    from webhook.engine.request import parse_review  # noqa: PLC0415
    from webhook.engine.review import review  # noqa: PLC0415
    from webhook.shell.app import _check_depth, check_body_depth  # noqa: PLC0415
    from webhook.shell.audit import audit_record  # noqa: PLC0415
    from webhook.shell.metrics import Metrics  # noqa: PLC0415
    from webhook.shell.response import review_response  # noqa: PLC0415

    body = orjson.dumps(document)
    fresh = [parse_review(orjson.loads(body)) for _ in range(iterations + 3)]
    for name, app in apps.items():
        counter.count(
            f"{label}|{name}", 1, lambda _, app=app: asyncio.run(_serve(app, body, iterations))
        )

    def parse(_: int) -> None:
        document = orjson.loads(body)
        has_duplicate_keys(body)
        check_body_depth(body, parse_review(document), 100)

    counter.count(f"{label}|parse", iterations, parse)
    counter.count(f"{label}|  parse: orjson", iterations, lambda _: orjson.loads(body))
    counter.count(
        f"{label}|  parse: duplicate keys", iterations, lambda _: has_duplicate_keys(body)
    )
    documents = [orjson.loads(body) for _ in range(iterations + 3)]
    counter.count(
        f"{label}|  parse: parse_review", iterations, lambda i: parse_review(documents[i])
    )
    counter.count(
        f"{label}|  parse: depth limit",
        iterations,
        lambda i: check_body_depth(body, fresh[i], 100),
    )
    counter.count(  # what the bracket count spares, or where it is over the limit, costs
        f"{label}|  parse: depth limit, walked", iterations, lambda i: _check_depth(fresh[i], 100)
    )
    decision = review(fresh[0], bundle)
    bundles = {"review": bundle, "review, no rules": replace(bundle, rules=()).indexed()}
    matched = () if fixed else bundle.rules_for(fresh[0].kind.group, fresh[0].kind.kind)
    for rule in matched:
        if rule.builtin is not None:
            rest = tuple(r for r in bundle.rules if r is not rule)
            bundles[f"without {rule.id}"] = replace(bundle, rules=rest).indexed()
    if any(r.builtin is None for r in matched):
        rest = tuple(r for r in bundle.rules if r.builtin)
        bundles["without CEL rules"] = replace(bundle, rules=rest).indexed()
    for name, judged in bundles.items():
        counter.count(f"{label}|{name}", iterations, lambda i, b=judged: review(fresh[i], b))
    uid = fresh[0].uid
    counter.count(
        f"{label}|encode", iterations, lambda _: orjson.dumps(review_response(uid, decision))
    )
    metrics = Metrics()

    def observe(i: int) -> None:
        metrics.observe(fresh[i], decision, 0.001)
        orjson.dumps(audit_record(fresh[i], decision, 0.001))

    counter.count(f"{label}|metrics+audit", iterations, observe)


async def _serve(app: Any, body: bytes, times: int) -> None:
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/validate",
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))],
        "http_version": "1.1",
        "scheme": "https",
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    for _ in range(times):
        sent.clear()
        await app(scope, receive, send)
        assert sent[0]["status"] == 200, sent


def report(work: Path, iterations: int) -> None:
    """The dumps, as a table of instructions per request (thousands)."""
    counts: dict[str, dict[str, float]] = {}
    for dump in sorted(work.glob("callgrind.out.*"), key=lambda p: int(p.name.rsplit(".", 1)[-1])):
        text = dump.read_text(errors="replace")
        trigger = re.search(r"^desc: Trigger: Client Request: (.*)$", text, re.M)
        total = re.search(r"^totals: (\d+)", text, re.M)  # summary: off with instrumentation
        if trigger is None or total is None or "|" not in trigger.group(1):
            continue
        label, part = trigger.group(1).split("|", 1)
        calls = max(iterations // 10, 2) if label in HEAVY else iterations
        counts.setdefault(label, {})[part] = int(total.group(1)) / calls / 1000
    for label, parts in counts.items():
        full = parts.get("review", 0.0)
        print(f"\n{label}: thousands of instructions per request (callgrind)")
        print(f"  {'part':44} {'k instr':>9}")
        for part, value in parts.items():
            if part.startswith("without "):
                removed = part.removeprefix("without ")
                shown = f"  rule {removed}" if removed != "CEL rules" else f"  {removed}"
                print(f"  {shown:44} {full - value:9.1f}")
            else:
                print(f"  {part:44} {value:9.1f}")
        for how in ("", ", 4 threads"):
            fedgate, floor = (
                parts.get(f"fedgate (adapter{how})"),
                parts.get(f"floor (adapter{how})"),
            )
            if fedgate is not None and floor is not None:
                print(f"  {'fedgate minus floor' + how:44} {fedgate - floor:9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--only", help="only the request types whose name contains this")
    parser.add_argument("--keep", type=Path, help="leave callgrind's dumps in this directory")
    parser.add_argument(
        "--fixed", action="store_true", help="only the fixed parts: no row per rule (faster)"
    )
    parser.add_argument("--inside", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside is not None:
        measure(args.inside, args.iterations, args.only, args.fixed)
        return
    work = args.keep or Path(tempfile.mkdtemp(prefix="fedgate-instructions-"))
    work.mkdir(parents=True, exist_ok=True)
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={work}/callgrind.out.%p",
        sys.executable,
        __file__,
        "--iterations",
        str(args.iterations),
        "--inside",
        str(work),
        *(["--only", args.only] if args.only else []),
        *(["--fixed"] if args.fixed else []),
    ]
    subprocess.run(
        command, check=True, env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    )
    report(work, args.iterations)


if __name__ == "__main__":
    main()

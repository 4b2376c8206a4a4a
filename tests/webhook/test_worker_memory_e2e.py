"""End to end: a worker that grows past ``--worker-memory-mib`` is replaced without a gap.

What grows it is what grows workers in the field (docs/webhook.md, "A worker's memory
ceiling"): a rule calling a library function fedgate implements in Python (``find()``) on
request data, whose argument cel-expr 0.1.3 keeps for good. Each review below hands ``find()``
a 200 KB annotation (under the forked lane's threshold, so the worker itself reviews it) on a
new connection, and other reviews run on new connections beside them throughout.
"""

from __future__ import annotations

import copy
import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES, POLICIES
from tests.webhook.server import Server, metric, serving, traffic
from webhook.shell.ceiling import MIB, own_memory_bytes

pytestmark = pytest.mark.slow  # starts fedgate serve (gunicorn) and grows a worker

CEILING_MIB = 110
NOTE_BYTES = 200_000
MOST_REVIEWS = 2000
BOUND_SECONDS = 120.0
ALLOWED = json.loads(
    (EXAMPLES / "requests" / "deployment-update-by-argocd-allowed.json").read_text()
)

RULE = """\
id: note-screened
description: A note annotation names nothing forbidden (find(), a function in Python).
validations:
  - expression: >-
      !has(object.metadata.annotations) || !('note' in object.metadata.annotations)
      || object.metadata.annotations['note'].find('forbidden') == ''
    message: the note names something forbidden
"""
BINDING = """\
action: deny
match:
  kinds:
    - {apiGroups: [apps], kinds: [Deployment]}
  scope: any
"""


def _policies(directory: Path) -> Path:
    policies = directory / "policies"
    shutil.copytree(POLICIES, policies)
    rule = policies / "rules" / "note-screened"
    rule.mkdir()
    (rule / "rule.yaml").write_text(RULE)
    (rule / "binding.yaml").write_text(BINDING)
    return policies


def _noted(n: int) -> dict[str, Any]:
    """The allowed Argo CD update with a 200 KB note (distinct per request) that ends in the
    forbidden word: the rule must run to deny it."""
    document = copy.deepcopy(ALLOWED)
    note = f"{n:08d}" + "x" * (NOTE_BYTES - 17) + "forbidden"
    document["request"]["object"]["metadata"]["annotations"]["note"] = note
    return document


def _denied_by_the_rule(server: Server, document: dict[str, Any]) -> None:
    status, body = server.review(document)
    assert status == 200, body
    assert isinstance(body, dict), body
    response = body["response"]
    assert response["allowed"] is False, response
    assert "the note names something forbidden" in json.dumps(response), response


def test_a_worker_past_its_ceiling_is_replaced_while_reviews_go_on(tmp_path: Path) -> None:
    with serving(
        tmp_path,
        _policies(tmp_path),
        workers=1,
        args=["--worker-memory-mib", str(CEILING_MIB)],
    ) as server:
        [first] = server.workers()
        start = own_memory_bytes(first)
        if start is None:
            pytest.skip("no /proc/PID/smaps_rollup here: the master cannot read a worker's memory")
        assert start < CEILING_MIB * MIB * 0.6, f"a fresh worker holds {start // MIB} MiB"
        started, sent, peak = time.monotonic(), 0, start
        with traffic(server, ALLOWED) as failures:
            while server.workers() == [first]:
                if sent >= MOST_REVIEWS or time.monotonic() - started > BOUND_SECONDS:
                    if peak - start < 20 * MIB:
                        pytest.skip(
                            f"{sent} reviews grew the worker by {(peak - start) // MIB} MiB: "
                            "cel-expr no longer keeps find()'s argument: nothing grows a worker"
                        )
                    pytest.fail(
                        f"worker {first} grew from {start // MIB} to {peak // MIB} MiB over "
                        f"{sent} reviews and was not replaced:\n{server.output()}"
                    )
                _denied_by_the_rule(server, _noted(sent))
                sent += 1
                peak = max(peak, own_memory_bytes(first) or 0)
            grown_for = time.monotonic() - started
            # the old worker stops once the new one serves; the traffic goes on meanwhile
            deadline = time.monotonic() + 30
            while first in server.workers() and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(1.0)
        assert failures == [], failures
        [second] = server.workers()
        assert second != first
        _denied_by_the_rule(server, _noted(sent))
        output = server.output()
        assert f"worker {first} holds " in output
        assert f"past its ceiling of {CEILING_MIB} MiB: a new worker replaces it" in output
        assert metric(server, "fedgate_worker_memory_replacements_total") == "1.0"
        print(
            f"worker {first} grew {start // MIB} -> {peak // MIB} MiB over {sent} reviews in "
            f"{grown_for:.1f} s"
        )

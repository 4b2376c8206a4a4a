"""The audit line names the clusters a propagation policy can select, shared with the review."""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest

from webhook.audit import (
    FAILING_AFTER,
    PENDING_BYTES,
    AuditSink,
    audit_record,
    nonblocking_descriptor,
)
from webhook.bundle.model import Bundle
from webhook.engine.decision import Decision
from webhook.engine.request import UserInfo, parse_review
from webhook.engine.review import review
from webhook.engine.tenancy import candidates

REQUESTS = Path(__file__).resolve().parents[2] / "examples" / "requests"


def _request(name: str) -> Any:
    return parse_review(orjson.loads((REQUESTS / name).read_bytes()), require_uid=False)


@pytest.mark.parametrize(
    "name",
    [
        "propagationpolicy-create-allowed.json",
        "propagationpolicy-team-a-on-cluster-c-denied.json",
        "clusterpropagationpolicy-by-platform-allowed.json",
    ],
)
def test_the_review_works_out_the_clusters_the_audit_line_names(bundle: Bundle, name: str) -> None:
    request = _request(name)
    decision = review(request, bundle)
    assert decision.targets is not None
    record = audit_record(request, decision, 0.001)
    placement = list(candidates(request.object["spec"], bundle))
    assert record["clusters"] == list(decision.targets) == placement


def test_a_deleted_policy_is_audited_with_its_old_placement(bundle: Bundle) -> None:
    created = _request("propagationpolicy-create-allowed.json")
    deleted = replace(created, operation="DELETE", object=None, old_object=created.object)
    decision = review(deleted, bundle)
    assert decision.targets == review(created, bundle).targets
    assert audit_record(deleted, decision, 0.001)["clusters"] == list(decision.targets)


def test_kinds_that_do_not_place_have_no_clusters(bundle: Bundle) -> None:
    request = _request("deployment-replicas-by-federatedhpa-allowed.json")
    decision = review(request, bundle)
    assert decision.targets is None
    assert audit_record(request, decision, 0.001)["clusters"] is None


def test_the_control_planes_own_writes_are_audited_with_their_clusters(bundle: Bundle) -> None:
    created = _request("propagationpolicy-create-allowed.json")
    collector = replace(
        created,
        operation="DELETE",
        object=None,
        old_object=created.object,
        user=UserInfo("system:serviceaccount:kube-system:generic-garbage-collector"),
    )
    decision = review(collector, bundle)
    assert decision.allowed and decision.targets == review(created, bundle).targets


def _record(user: str = "alice@example.com", **extra: Any) -> dict[str, Any]:
    request = replace(
        _request("deployment-replicas-by-federatedhpa-allowed.json"),
        user=UserInfo(user, tuple(f"group-{i}" for i in range(40))),
        **extra,
    )
    return audit_record(request, Decision(allowed=True), 0.001)


def test_a_line_stays_under_pipe_buf_whatever_the_request_carries() -> None:
    line = orjson.dumps(_record("u" * 1_000_000, name="n" * 100_000, uid="x" * 50_000))
    assert len(line) < 4096
    record = orjson.loads(line)
    assert record["user"].endswith("...") and record["groups"][-1] == "..."


def _sink(descriptor: int) -> tuple[AuditSink, list[str]]:
    lost: list[str] = []
    return AuditSink(descriptor, lost.append), lost


def test_a_full_disk_loses_lines_and_says_so() -> None:
    with open("/dev/full", "wb") as full:
        sink, lost = _sink(full.fileno())
        for _ in range(FAILING_AFTER - 1):
            sink.write(_record())
        assert not sink.failing and lost == ["error"] * (FAILING_AFTER - 1)
        sink.write(_record())
        assert sink.failing and sink.status()["status"] == "failing"
        assert "No space left on device" in sink.status()["lastError"]


def test_a_closed_pipe_loses_lines_and_says_so() -> None:
    read, write = os.pipe()
    os.close(read)
    try:
        sink, lost = _sink(write)
        for _ in range(FAILING_AFTER):
            sink.write(_record())
        assert sink.failing and set(lost) == {"closed"}
    finally:
        os.close(write)


def test_a_reader_that_never_reads_never_blocks_a_write() -> None:
    """A FIFO nobody reads: the kernel's buffer fills, then ours, then lines are dropped."""
    read, write = os.pipe()
    try:
        sink, lost = _sink(nonblocking_descriptor(write))
        started = time.monotonic()
        for _ in range(3_000):  # about 1 MiB of lines, four times what both buffers hold
            sink.write(_record())
        assert time.monotonic() - started < 10  # a bound: a blocking write would never return
        assert sink.failing and set(lost) == {"full"}
        assert sink.status()["pendingBytes"] <= PENDING_BYTES
        os.read(read, 1 << 20)  # the reader wakes up: the next line goes out, whole
        sink.write(_record())
        assert not sink.failing
    finally:
        os.close(read)
        os.close(write)


def test_held_lines_go_out_in_order_and_whole() -> None:
    read, write = os.pipe()
    try:
        sink, _ = _sink(nonblocking_descriptor(write))
        for index in range(200):
            sink.write(_record(uid=f"u-{index}"))
        os.set_blocking(read, False)
        data = b""
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(read, 1 << 16):
                data += chunk
        uids = [orjson.loads(line)["uid"] for line in data.splitlines()]
        assert uids == [f"u-{i}" for i in range(len(uids))] and len(uids) > 10
    finally:
        os.close(read)
        os.close(write)

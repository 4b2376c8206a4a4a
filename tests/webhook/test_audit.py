"""The audit line names the clusters a propagation policy can select, shared with the review."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.bundle.model import Bundle
from webhook.engine.decision import Decision, ExceptionUse, Violation
from webhook.engine.request import UserInfo, parse_review
from webhook.engine.review import review
from webhook.engine.tenancy import candidates
from webhook.shell.audit import (
    FAILING_AFTER,
    FIELD_CHARS,
    LIST_ITEMS,
    OVERTIME_RULE,
    PENDING_BYTES,
    AuditSink,
    append_if_regular_file,
    audit_record,
    nonblocking_descriptor,
    overtime_record,
)

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
        user=UserInfo("system:serviceaccount:kube-system:namespace-controller"),
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


@pytest.mark.parametrize("parsed", [True, False], ids=["parsed", "still-queued"])
def test_an_overtime_denial_has_the_fields_of_every_line(parsed: bool) -> None:
    admission = _request("propagationpolicy-create-allowed.json")
    line = overtime_record("u-9", admission if parsed else None, 2.5)
    usual = audit_record(admission, Decision(allowed=False), 2.5)
    assert list(line) == list(usual)  # same fields, same order
    assert (line["uid"], line["allowed"], line["denied_by"]) == ("u-9", False, [OVERTIME_RULE])
    assert line["latency_ms"] == 2500.0
    if parsed:
        assert (line["user"], line["kind"]) == (usual["user"], usual["kind"])
    else:
        assert line["user"] is None and line["kind"] is None


def test_a_plain_file_descriptor_is_made_to_append(tmp_path: Path) -> None:
    """Two descriptors on one file without O_APPEND write at their own offsets, over each
    other; made to append, neither loses a byte."""
    path = tmp_path / "log"
    first = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    second = os.open(path, os.O_WRONLY)
    try:
        append_if_regular_file(first)
        append_if_regular_file(second)
        os.write(first, b"one\n")
        os.write(second, b"two\n")
        os.write(first, b"three\n")
    finally:
        os.close(first)
        os.close(second)
    assert path.read_bytes() == b"one\ntwo\nthree\n"


def test_a_pipe_is_left_as_it_is() -> None:
    reader, writer = os.pipe()
    try:
        before = fcntl.fcntl(writer, fcntl.F_GETFL)
        append_if_regular_file(writer)
        assert fcntl.fcntl(writer, fcntl.F_GETFL) == before
    finally:
        os.close(reader)
        os.close(writer)


def _slow_cut(text: str) -> str:
    return text if len(text) <= FIELD_CHARS else text[: FIELD_CHARS - 3] + "..."


def _slow_cut_list(items: Any) -> list[str]:
    kept = [_slow_cut(str(item)) for item in list(items)[:LIST_ITEMS]]
    return [*kept, "..."] if len(items) > LIST_ITEMS else kept


def _slow_record(admission: Any, decision: Decision, seconds: float) -> dict[str, Any]:
    """The audit line as written before its fast paths: every field cut one by one."""
    violations, exceptions = decision.violations, decision.exceptions
    staged = sorted({f"{v.rule}: {v.enforced}" for v in violations if v.enforced})
    return {
        "uid": _slow_cut(admission.uid),
        "user": _slow_cut(admission.user.username),
        "groups": _slow_cut_list(admission.user.groups),
        "operation": admission.operation,
        "kind": _slow_cut(f"{admission.kind.api_version}/{admission.kind.kind}"),
        "subResource": _slow_cut(admission.sub_resource) or None,
        "namespace": _slow_cut(admission.namespace) or None,
        "name": _slow_cut(admission.name) or None,
        "clusters": _slow_cut_list(decision.targets) if decision.targets is not None else None,
        "dryRun": admission.dry_run,
        "allowed": decision.allowed,
        "rules": _slow_cut_list(sorted({v.rule for v in violations})),
        "denied_by": _slow_cut_list(sorted({v.rule for v in decision.denials})),
        "exceptions": _slow_cut_list(sorted({f"{u.exception}/{u.rule}" for u in exceptions})),
        "latency_ms": round(seconds * 1000, 3),
        **({"staged": _slow_cut_list(staged)} if staged else {}),
    }


_texts = st.one_of(
    st.text(max_size=4),
    st.integers(FIELD_CHARS - 2, FIELD_CHARS + 2).map(lambda n: "x" * n),
)
_lists = st.lists(_texts, max_size=LIST_ITEMS + 2).map(tuple)


@settings(max_examples=200, deadline=None)
@given(
    texts=st.tuples(_texts, _texts, _texts, _texts, _texts, _texts, _texts),
    groups=_lists,
    targets=st.none() | _lists,
    violations=st.lists(
        st.tuples(_texts, st.sampled_from(["deny", "warn", "audit"]), st.none() | st.just("deny")),
        max_size=LIST_ITEMS + 2,
    ),
    lifted=st.lists(st.tuples(_texts, _texts), max_size=3),
    seconds=st.floats(0, 100),
)
def test_the_audit_line_is_the_one_cut_field_by_field(
    *,
    texts: tuple[str, ...],
    groups: tuple[str, ...],
    targets: tuple[str, ...] | None,
    violations: list[tuple[str, str, str | None]],
    lifted: list[tuple[str, str]],
    seconds: float,
) -> None:
    """The line's fast paths (one length test for every text field, lists copied whole when
    short) write what cutting every field one by one writes, long fields and lists included."""
    uid, username, group, kind, sub_resource, namespace, name = texts
    admission = parse_review(
        {
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": uid or "u",
                "kind": {"group": group, "version": "v1", "kind": kind or "K"},
                "operation": "UPDATE",
                "userInfo": {"username": username, "groups": list(groups)},
                "subResource": sub_resource,
                "namespace": namespace,
                "name": name,
            },
        }
    )
    decision = Decision(
        allowed=not any(action == "deny" for _, action, _ in violations),
        violations=tuple(
            Violation(rule, action=action, enforced=enforced)  # type: ignore[arg-type]
            for rule, action, enforced in violations
        ),
        targets=targets,
        exceptions=tuple(ExceptionUse(e, r, "2030-01-01", "o") for e, r in lifted),
    )
    assert audit_record(admission, decision, seconds) == _slow_record(admission, decision, seconds)

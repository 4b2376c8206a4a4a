"""End to end: a real gunicorn over real TLS on 127.0.0.1, the API server's contract."""

from __future__ import annotations

import json
import re
import shutil
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLES, POLICIES
from tests.webhook.engine.staged import staged_policies
from tests.webhook.server import Server, serving
from webhook.bundle.model import Bundle
from webhook.engine.request import parse_review
from webhook.engine.review import review
from webhook.suites import load_suite

pytestmark = pytest.mark.slow  # starts gunicorn over TLS

REQUESTS = EXAMPLES / "requests"
CASES = load_suite(REQUESTS / "tests.yaml")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("server"), POLICIES) as running:
        yield running


def _review(uid: str = "u-1", **request: Any) -> dict[str, Any]:
    base = {
        "uid": uid,
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "operation": "CREATE",
        "namespace": "tools",
        "name": "x",
        "userInfo": {"username": "mallory"},
        "object": {"kind": "Deployment"},
    }
    return {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {**base, **request},
    }


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_example_requests_get_their_decision(server: Server, case: Any) -> None:
    status, body = server.review(case.review)
    assert status == 200 and isinstance(body, dict)
    assert body["apiVersion"] == "admission.k8s.io/v1" and body["kind"] == "AdmissionReview"
    response = body["response"]
    assert response["uid"] == case.review["request"]["uid"]
    assert response["allowed"] is case.expect.allowed
    assert "patch" not in response and "patchType" not in response  # a validating webhook
    if not case.expect.allowed:
        assert response["status"]["code"] == 403
        for rule in case.expect.rules or ():
            assert f"[{rule}]" in response["status"]["message"]


def test_every_violation_is_in_the_message(server: Server) -> None:
    document = json.loads(
        (REQUESTS / "propagationpolicy-team-a-on-cluster-c-denied.json").read_text()
    )
    _, body = server.review(document)
    assert isinstance(body, dict)
    message = body["response"]["status"]["message"]
    assert message.count("[tenancy.") == 4  # two data-scope, placement-scope, propagate-deps


def test_warnings_and_audit_annotations(server: Server) -> None:
    document = json.loads((REQUESTS / "deployment-break-glass-allowed.json").read_text())
    _, body = server.review(document)
    assert isinstance(body, dict)
    response = body["response"]
    assert response["allowed"] is True
    assert any(w.startswith("break-glass: oncall@example.com") for w in response["warnings"])
    assert all(len(w) <= 256 for w in response["warnings"])
    assert response["auditAnnotations"] == {
        "break-glass": "oncall@example.com (break-glass) bypassed ownership.field-owner"
    }


def test_dry_run_gets_the_same_decision(server: Server) -> None:
    document = json.loads(
        (REQUESTS / "propagationpolicy-team-a-on-cluster-c-denied.json").read_text()
    )
    _, wet = server.review(document)
    document["request"]["dryRun"] = True
    _, dry = server.review(document)
    assert isinstance(wet, dict) and isinstance(dry, dict)
    assert wet["response"] == dry["response"]


BIG = 8 * 1024 * 1024


@pytest.mark.parametrize(
    ("body", "content_type", "status", "message"),
    [
        pytest.param(b"not json", "application/json", 400, "not JSON", id="not-json"),
        pytest.param(b"", "application/json", 400, "not JSON", id="empty"),
        pytest.param(b"{}", "text/plain", 415, "Content-Type must be", id="content-type"),
        pytest.param(
            b'{"kind": "AdmissionReview"}',
            "application/json",
            400,
            "apiVersion must be",
            id="no-api-version",
        ),
        pytest.param(
            json.dumps({**_review(), "apiVersion": "admission.k8s.io/v1beta1"}).encode(),
            "application/json",
            400,
            "apiVersion must be",
            id="v1beta1",
        ),
        pytest.param(
            json.dumps({**_review(), "kind": "Pod"}).encode(),
            "application/json",
            400,
            "kind must be AdmissionReview",
            id="wrong-kind",
        ),
        pytest.param(
            b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}',
            "application/json",
            400,
            "request must be an object",
            id="no-request",
        ),
        pytest.param(
            json.dumps(_review(uid="")).encode(),
            "application/json",
            400,
            "uid is required",
            id="no-uid",
        ),
        pytest.param(
            b"[" * 5000 + b"]" * 5000,
            "application/json",
            400,
            "not JSON",
            id="nested-beyond-the-parser",
        ),
    ],
)
def test_bad_requests_get_a_clear_4xx(
    server: Server, body: bytes, content_type: str, status: int, message: str
) -> None:
    got, answer = server.request("POST", "/validate", body, content_type)
    assert got == status
    assert isinstance(answer, dict) and answer["kind"] == "Status"
    assert message in answer["message"]


@pytest.mark.parametrize(
    ("review", "message"),
    [
        pytest.param(_review(operation="EXPLODE"), "operation must be one of", id="operation"),
        pytest.param(_review(object="nope"), "request.object must be an object", id="object"),
        pytest.param(
            _review(object=json.loads("[" * 150 + "]" * 150)),
            "request.object must be an object",
            id="object-list",
        ),
        pytest.param(
            _review(object={"spec": json.loads('{"a":' * 150 + "1" + "}" * 150)}),
            "nests deeper than 100 levels",
            id="too-deep",
        ),
    ],
)
def test_a_bad_request_with_a_uid_is_denied_with_it(
    server: Server, review: dict[str, Any], message: str
) -> None:
    status, body = server.review(review)
    assert status == 200 and isinstance(body, dict)
    assert body["response"]["uid"] == "u-1"
    assert body["response"]["allowed"] is False
    assert message in body["response"]["status"]["message"]


def test_a_body_over_the_limit_is_refused_before_it_is_read(server: Server) -> None:
    """413 from the Content-Length alone: the server does not wait for 8 MiB to arrive."""
    connection = server.connection()
    try:
        connection.putrequest("POST", "/validate")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", str(BIG))
        connection.endheaders(b'{"apiVersion": "admission.k8s.io/v1", ')
        response = connection.getresponse()
        assert response.status == 413
        message = json.loads(response.read())["message"]
        assert message.startswith("the body is larger than the 7340032 bytes the webhook accepts")
    finally:
        connection.close()


def test_other_methods_and_paths(server: Server) -> None:
    assert server.request("GET", "/validate")[0] == 405
    assert server.request("GET", "/nope")[0] == 404
    assert server.request("GET", "/healthz") == (200, {"status": "ok"})


def test_concurrent_requests_each_get_their_own_answer(server: Server) -> None:
    expected = {c.review["request"]["uid"]: c.expect.allowed for c in CASES}
    documents = [c.review for c in CASES]

    def one(index: int) -> tuple[str, str, bool]:
        document = json.loads(json.dumps(documents[index % len(documents)]))
        allowed = expected[document["request"]["uid"]]
        uid = f"concurrent-{index}"
        document["request"]["uid"] = uid
        connection = server.connection()
        try:
            _, body = server.review(document, connection=connection)
        finally:
            connection.close()
        assert isinstance(body, dict)
        return uid, body["response"]["uid"], body["response"]["allowed"] is allowed

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(one, range(96)))
    assert all(sent == answered for sent, answered, _ in results)
    assert all(right for _, _, right in results)


def _requests_counted(server: Server) -> tuple[float, str]:
    status, text = server.request("GET", "/metrics")
    assert status == 200 and isinstance(text, str)
    counted = sum(
        float(m)
        for m in re.findall(
            r"^fedgate_admission_requests_total\{[^}]*\} (\S+)$", text, re.MULTILINE
        )
    )
    return counted, text


def test_metrics_count_decisions_across_workers(server: Server) -> None:
    """Every request it sends is counted once, whichever worker answered it (on its own: the
    server is shared by the module, so it counts the difference)."""
    before, _ = _requests_counted(server)
    for case in CASES:
        status, _ = server.review(case.review)
        assert status == 200
    after, text = _requests_counted(server)
    assert after - before == len(CASES)
    assert "fedgate_admission_duration_seconds_bucket" in text
    assert "fedgate_rule_violations_total" in text


def test_audit_lines_carry_no_object_bodies(server: Server) -> None:
    server.review(json.loads((REQUESTS / "propagationpolicy-secret-to-us-denied.json").read_text()))
    time.sleep(0.2)
    lines = [json.loads(line) for line in server.output().splitlines() if line.startswith("{")]
    assert lines
    line = lines[-1]
    assert set(line) == {
        "uid",
        "user",
        "groups",
        "operation",
        "kind",
        "subResource",
        "namespace",
        "name",
        "clusters",
        "dryRun",
        "allowed",
        "rules",
        "denied_by",
        "exceptions",
        "latency_ms",
    }
    assert "checkout-db" not in json.dumps(line)  # nothing from the object itself


json_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
review_like = st.fixed_dictionaries(
    {
        "apiVersion": st.sampled_from(["admission.k8s.io/v1", "admission.k8s.io/v1beta1", 1]),
        "kind": st.sampled_from(["AdmissionReview", "Pod"]),
    },
    optional={
        "request": st.fixed_dictionaries(
            {},
            optional={
                "uid": st.sampled_from(["h-1", "", 7]),
                "operation": st.sampled_from(["CREATE", "UPDATE", "DELETE", "PATCH", None]),
                "kind": st.fixed_dictionaries(
                    {"kind": st.sampled_from(["Deployment", "Scale"])},
                    optional={"group": st.sampled_from(["apps", ""])},
                ),
                "namespace": st.sampled_from(["platform-demo", "payments", "x"]),
                "userInfo": st.fixed_dictionaries(
                    {},
                    optional={
                        "username": st.sampled_from(["alice", "system:karmada:x"]),
                        "groups": st.lists(st.sampled_from(["team-a", "platform-admins"])),
                    },
                ),
                "object": json_value,
                "oldObject": json_value,
                "subResource": st.sampled_from(["", "scale", "status"]),
                "dryRun": json_leaf,
            },
        )
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(review_like)
def test_generated_reviews_never_5xx_nor_an_allow_the_engine_would_not_give(
    server: Server, bundle: Bundle, document: dict[str, Any]
) -> None:
    status, body = server.review(document)
    assert status < 500
    if status != 200:
        return
    assert isinstance(body, dict)
    response = body["response"]
    if response["allowed"]:
        assert review(parse_review(document), bundle).allowed


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_random_bytes_never_5xx(server: Server, data: bytes) -> None:
    status, _ = server.request("POST", "/validate", data)
    assert 400 <= status < 500 or status == 200
    if status == 200:
        assert json.loads(data)  # only a parseable review can get an answer


def _rewrite(policies: Path, rule: str, action: str) -> None:
    binding = policies / "rules" / rule / "binding.yaml"
    binding.write_text(re.sub(r"(?m)^action: \w+", f"action: {action}", binding.read_text()))


def test_sighup_reloads_a_good_bundle_and_refuses_a_broken_one(tmp_path: Path) -> None:
    policies = tmp_path / "policies"
    shutil.copytree(POLICIES, policies)
    denied = json.loads((REQUESTS / "deployment-latest-tag-denied.json").read_text())
    with serving(tmp_path, policies, workers=1) as server:
        assert server.review(denied)[1]["response"]["allowed"] is False  # type: ignore[index]
        _rewrite(policies, "image-tag", "warn")
        _reload(server, lambda: server.review(denied)[1]["response"]["allowed"] is True)  # type: ignore[index]
        (policies / "rules" / "image-tag" / "rule.yaml").write_text("validations: [\n")
        _rewrite(policies, "registry-allowed", "warn")
        server.process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 20
        while "still serving the previous one" not in server.output():
            assert time.monotonic() < deadline, server.output()
            time.sleep(0.1)
        time.sleep(1.5)  # new workers from the last good bundle
        _, body = server.review(denied)
        assert isinstance(body, dict) and body["response"]["allowed"] is True  # still warn
        _, metrics = server.request("GET", "/metrics")
        assert re.search(r"^fedgate_bundle_load_errors_total 1\.0$", str(metrics), re.MULTILINE)
        assert "rules/image-tag/rule.yaml:2:1: not valid YAML" in server.output()  # named


def _reload(server: Server, done: Any) -> None:
    server.process.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 20
    while not done():
        assert time.monotonic() < deadline, server.output()
        time.sleep(0.2)


def test_a_staged_rule_audits_at_the_webhook_and_says_what_it_would_deny(
    tmp_path: Path,
) -> None:
    """`fedgate serve` reviews at the webhook's point: image-tag, staged (audit there, deny
    once enforced), lets the write through, annotates it and logs what enforcing would refuse."""
    with serving(tmp_path, staged_policies(tmp_path), workers=1) as staged:
        document = json.loads((REQUESTS / "deployment-latest-tag-denied.json").read_text())
        status, body = staged.review(document)
        assert status == 200 and isinstance(body, dict)
        response = body["response"]
        assert response["allowed"] is True
        assert response["auditAnnotations"]["image-tag"].endswith("(staged: deny once enforced)")
        assert "warnings" not in response
        time.sleep(0.2)
        lines = [json.loads(ln) for ln in staged.output().splitlines() if ln.startswith("{")]
        assert lines[-1]["staged"] == ["image-tag: deny"]
        assert (lines[-1]["allowed"], lines[-1]["denied_by"]) == (True, [])

"""Exceptions through `fedgate serve` on 127.0.0.1: a lifted denial is allowed and says so (the
warning, the audit annotation and line, the metric); past its date it denies again; nothing a
tenant writes through the webhook becomes an exception. The day is injected (FEDGATE_TODAY)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES, POLICIES
from tests.webhook.exception_files import LEGACY_EXCEPTION as EXCEPTION
from tests.webhook.server import Server, serving

pytestmark = pytest.mark.slow  # starts fedgate serve

LATEST = json.loads((EXAMPLES / "requests" / "deployment-latest-tag-denied.json").read_text())
ALICE = {"username": "alice@example.com", "groups": ["team-a", "system:authenticated"]}


@pytest.fixture(scope="module")
def policies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("bundle") / "policies"
    shutil.copytree(POLICIES, copy)
    (copy / "exceptions").mkdir()
    (copy / "exceptions" / "legacy-demo.yaml").write_text(EXCEPTION)
    return copy


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, policies: Path) -> Iterator[Server]:
    with serving(
        tmp_path_factory.mktemp("server"),
        policies,
        workers=1,
        env={"FEDGATE_TODAY": "2026-12-30"},
    ) as running:
        yield running


def _answer(server: Server, document: dict[str, Any]) -> dict[str, Any]:
    status, body = server.review(document)
    assert status == 200 and isinstance(body, dict), body
    response: dict[str, Any] = body["response"]
    return response


def _with(uid: str, **changes: Any) -> dict[str, Any]:
    document = json.loads(json.dumps(LATEST))
    document["request"].update(uid=uid, **changes)
    return document


def test_an_exception_in_force_allows_and_says_so(server: Server) -> None:
    response = _answer(server, _with("lifted-1"))
    assert response["allowed"] is True
    assert response["warnings"] == [
        "exception legacy-demo (owner platform@example.com, expires 2026-12-31) lifts "
        "image-tag: image registry.example.com/platform/demo-http:latest is not pinned: give "
        "it a tag other than latest, or a digest"
    ]
    assert response["auditAnnotations"] == {"exception": "legacy-demo lifted image-tag"}
    lines = [json.loads(line) for line in server.output().splitlines() if line.startswith("{")]
    (line,) = [line for line in lines if line.get("uid") == "lifted-1"]
    assert line["allowed"] is True and line["exceptions"] == ["legacy-demo/image-tag"]
    _, metrics = server.request("GET", "/metrics")
    assert re.search(
        r'^fedgate_exception_uses_total\{exception="legacy-demo",rule="image-tag"\} 1\.0$',
        str(metrics),
        re.MULTILINE,
    ), metrics


def test_what_the_exception_does_not_match_is_still_denied(server: Server) -> None:
    other = _with("other-name", name="demo-other")
    other["request"]["object"]["metadata"]["name"] = "demo-other"
    response = _answer(server, other)
    assert response["allowed"] is False
    assert "[image-tag]" in response["status"]["message"]


def test_nothing_a_tenant_writes_through_the_webhook_becomes_an_exception(
    server: Server,
) -> None:
    """A tenant's PolicyException object, a ConfigMap carrying one in its namespace, and the
    bundle's own ConfigMap key: the first two are objects like any (fedgate reads exceptions
    from its bundle only). ConfigMaps reach the webhook only through its conflict-resolution
    entry (``webhook/engine/registration.py``; RBAC keeps tenants out of fedgate-system), so
    the last is sent with that annotation, and denied on it."""
    forged = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "fedgate-policies",
            "namespace": "fedgate-system",
            "annotations": {"work.karmada.io/conflict-resolution": "overwrite"},
        },
        "data": {"exceptions__mine.yaml": EXCEPTION.replace("legacy-demo", "mine")},
    }
    bundle_write = _with(
        "forged-bundle",
        kind={"group": "", "version": "v1", "kind": "ConfigMap"},
        resource={"group": "", "version": "v1", "resource": "configmaps"},
        namespace="fedgate-system",
        name="fedgate-policies",
        userInfo=ALICE,
        object=forged,
    )
    response = _answer(server, bundle_write)
    assert response["allowed"] is False
    assert "[tenancy.conflict-overwrite]" in response["status"]["message"]
    in_own = {**forged, "metadata": {"name": "my-exceptions", "namespace": "platform-demo"}}
    answer = _answer(
        server,
        _with(
            "tenant-configmap",
            kind={"group": "", "version": "v1", "kind": "ConfigMap"},
            resource={"group": "", "version": "v1", "resource": "configmaps"},
            name="my-exceptions",
            userInfo=ALICE,
            object=in_own,
        ),
    )
    assert "exception" not in answer.get("auditAnnotations", {})  # a ConfigMap, nothing more
    # the tenant's own latest image, with an exception for it claimed every way above
    tenant_latest = _with("tenant-latest", userInfo=ALICE, name="mine")
    tenant_latest["request"]["object"]["metadata"]["name"] = "mine"
    response = _answer(server, tenant_latest)
    assert response["allowed"] is False
    assert "[image-tag]" in response["status"]["message"]
    assert "warnings" not in response or not any("exception" in w for w in response["warnings"])


def test_past_its_date_the_exception_lifts_nothing(tmp_path: Path, policies: Path) -> None:
    with serving(tmp_path, policies, workers=1, env={"FEDGATE_TODAY": "2026-12-31"}) as server:
        response = _answer(server, _with("expired-1"))
    assert response["allowed"] is False
    assert "[image-tag]" in response["status"]["message"]
    assert response["warnings"] == [
        "exception legacy-demo expired on 2026-12-31: it no longer lifts image-tag"
    ]

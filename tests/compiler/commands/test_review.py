"""``fedgate review`` of what a user has at hand: a file that is missing, a directory, a bare
Deployment (it wants an AdmissionReview, and says how to make one), and --object."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.compiler.commands.entry import fedgate, no_traceback
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # runs the fedgate command line as a process

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: platform-demo}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: IMAGE
          resources: {requests: {cpu: 10m, memory: 16Mi}}
"""


@pytest.fixture
def here(tmp_path: Path) -> Path:
    (tmp_path / "deployment.yaml").write_text(
        DEPLOYMENT.replace("IMAGE", "registry.example.com/platform/web:1.0")
    )
    (tmp_path / "latest.yaml").write_text(DEPLOYMENT.replace("IMAGE", "nginx:latest"))
    (tmp_path / "list.json").write_text("[]\n")
    (tmp_path / "bare.json").write_text(
        '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}\n'
    )
    return tmp_path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["nope.json"], "nope.json: cannot read: no such file or directory", id="nope"),
        pytest.param(["."], ".: cannot read: is a directory", id="directory"),
        pytest.param(
            ["deployment.yaml"],
            "deployment.yaml holds a Deployment (apps/v1), not an admission.k8s.io/v1 "
            "AdmissionReview (what the API server sends a webhook). To review a write of it: "
            "fedgate review --object deployment.yaml --operation CREATE --user NAME "
            "[--group GROUP]",
            id="bare-deployment",
        ),
        # an AdmissionReview that is not one named no file: "the AdmissionReview must be an
        # object", "request must be an object"
        pytest.param(
            ["list.json"], "list.json: the AdmissionReview must be an object", id="a-list"
        ),
        pytest.param(["bare.json"], "bare.json: request must be an object", id="no-request"),
        pytest.param(
            [], "give an AdmissionReview file (REQUEST, or - for stdin) or --object", id="none"
        ),
    ],
)
def test_review_says_what_is_wrong(here: Path, args: list[str], message: str) -> None:
    result = fedgate("review", *args, "--example-policies", cwd=here)
    no_traceback(result)
    assert result.returncode in (1, 2)
    assert result.stderr == f"fedgate: {message}\n"
    as_json = fedgate("review", *args, "--example-policies", "--output", "json", cwd=here)
    report = json.loads(as_json.stdout)
    assert report["ok"] is False and report["errors"][0]["message"] == message


def test_review_builds_the_request_from_an_object(here: Path) -> None:
    allowed = fedgate(
        "review",
        "--object",
        "deployment.yaml",
        "--operation",
        "create",
        "--user",
        "alice",
        "--group",
        "team-a",
        "--example-policies",
        cwd=here,
    )
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert allowed.stdout.startswith("ALLOWED CREATE apps/v1 Deployment platform-demo/web by alice")
    denied = fedgate(
        "review",
        "--object",
        "latest.yaml",
        "--user",
        "alice",
        "--group",
        "team-a",
        "--example-policies",
        "--output",
        "json",
        cwd=here,
    )
    assert denied.returncode == 1
    rules = [v["rule"] for v in json.loads(denied.stdout)["violations"]]
    assert rules == ["image-tag", "registry-allowed"]


def test_review_of_an_update_by_someone_else(here: Path) -> None:
    result = fedgate(
        "review",
        "--object",
        "latest.yaml",
        "--old-object",
        "deployment.yaml",
        "--user",
        "mallory",
        "--example-policies",
        cwd=here,
    )
    assert result.returncode == 1
    assert result.stdout.startswith(
        "DENIED  UPDATE apps/v1 Deployment platform-demo/web by mallory"
    )


def test_review_of_an_example_request_still_works() -> None:
    request = "examples/requests/deployment-replicas-by-argocd-denied.json"
    result = fedgate("review", request, cwd=ROOT)
    assert result.returncode == 1 and result.stdout.startswith("DENIED")


@pytest.mark.parametrize(
    ("point", "code", "line"),
    [
        pytest.param("webhook", 0, "  audit image-tag  [staged: deny once enforced]", id="webhook"),
        pytest.param("check", 0, "  warn  image-tag  [staged: deny once enforced]", id="check"),
        pytest.param("audit", 1, "  deny  image-tag", id="audit"),
    ],
)
def test_review_answers_as_the_point_named(
    tmp_path: Path, point: str, code: int, line: str
) -> None:
    from tests.webhook.engine.staged import LATEST, staged_policies  # noqa: PLC0415

    policies = staged_policies(tmp_path)
    result = fedgate("review", "--policies", str(policies), "--point", point, str(LATEST), cwd=ROOT)
    assert result.returncode == code, result.stderr
    assert result.stdout.splitlines()[1] == line

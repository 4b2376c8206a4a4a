"""``fedgate audit`` as a user runs it: kubectl's output piped in, files, PolicyReports out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.compiler.commands.entry import fedgate, no_traceback
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # runs the fedgate command line as a process

GOLDEN = ROOT / "tests" / "golden" / "examples"


def _live_list(image: str | None = None) -> str:
    """The example world's Deployments as ``kubectl get deploy -A -o yaml`` prints them (a
    List; server fields on each), the first one's image replaced when given."""
    items = [
        yaml.safe_load(path.read_text(encoding="utf-8"))
        for path in sorted(GOLDEN.rglob("deployment.yaml"))
    ]
    for index, item in enumerate(items):
        item["metadata"].update(resourceVersion=str(100 + index), uid=f"uid-{index}")
        item["status"] = {"replicas": item["spec"].get("replicas", 1)}
    if image is not None:
        items[0]["spec"]["template"]["spec"]["containers"][0]["image"] = image
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, sort_keys=False)


def test_the_live_example_world_passes_and_a_hand_edit_is_named(tmp_path: Path) -> None:
    clean = fedgate("audit", "-", "--example-policies", cwd=tmp_path, stdin=_live_list())
    no_traceback(clean)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "0 would be denied" in clean.stdout
    edited = fedgate(
        "audit", "-", "--example-policies", cwd=tmp_path, stdin=_live_list("nginx:latest")
    )
    assert edited.returncode == 1, edited.stdout + edited.stderr
    lines = edited.stdout.splitlines()
    assert [line.split()[0] for line in lines if line.startswith(("DENY", "WARN"))] == [
        "DENY",
        "DENY",
    ]
    assert any("image-tag" in line for line in lines) and any("registry" in line for line in lines)
    assert "1 would be denied" in edited.stdout


def test_json_and_policy_reports_say_the_same(tmp_path: Path) -> None:
    stdin = _live_list("nginx:latest")
    as_json = json.loads(
        fedgate(
            "audit", "-", "--example-policies", "--output", "json", cwd=tmp_path, stdin=stdin
        ).stdout
    )
    reports = list(
        yaml.safe_load_all(
            fedgate(
                "audit",
                "-",
                "--example-policies",
                "--output",
                "policyreport",
                cwd=tmp_path,
                stdin=stdin,
            ).stdout
        )
    )
    failing = [
        (x["policy"], x["resources"][0]["name"])
        for r in reports
        for x in r["results"]
        if x["result"] == "fail"
    ]
    assert sorted(failing) == sorted(
        (f["rule"], f["object"]["name"]) for f in as_json["findings"] if f["result"] == "fail"
    )
    assert as_json["denied"] == 1 and as_json["objects"] == len(
        list(GOLDEN.rglob("deployment.yaml"))
    )
    assert sum(r["summary"]["pass"] for r in reports) == as_json["objects"] - 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("a: [\n", "objects.yaml:2", id="not-yaml"),
        pytest.param(
            "apiVersion: v1\nkind: List\nitems:\n  - {kind: ConfigMap}\n",
            "SKIP  objects.yaml:4: no apiVersion",
            id="an-item-without-apiVersion-by-its-line",
        ),
    ],
)
def test_what_cannot_be_read_is_named_by_file_and_line(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "objects.yaml").write_text(text, encoding="utf-8")
    result = fedgate("audit", "objects.yaml", "--example-policies", cwd=tmp_path)
    no_traceback(result)
    assert result.returncode == 1
    assert message in result.stdout + result.stderr


def test_an_unknown_writer_is_a_usage_error(tmp_path: Path) -> None:
    result = fedgate(
        "audit", "-", "--example-policies", "--writer", "nobody", cwd=tmp_path, stdin=_live_list()
    )
    assert result.returncode == 2
    assert "--writer nobody: the bundle has no such writer (" in result.stderr


@pytest.mark.parametrize("args", [[], ["-", "--kubeconfig", "k.yaml"]], ids=["none", "both"])
def test_objects_come_from_files_or_the_api_server_not_both(
    tmp_path: Path, args: list[str]
) -> None:
    result = fedgate("audit", *args, "--example-policies", cwd=tmp_path, stdin="")
    no_traceback(result)
    assert result.returncode == 2
    assert "give the objects (FILE..., or - for standard input) or --kubeconfig" in result.stderr

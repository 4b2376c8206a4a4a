"""``fedgate cel eval``: one expression or a batch, text or JSON, on either backend."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from compiler.cli import main
from tests.conftest import EXAMPLES


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["cel", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("backend", ["cel-expr", "cel-python"])
def test_one_expression_shows_value_type_and_time(backend: str) -> None:
    code, out, _ = run(
        "eval", "quantity('1500m').isGreaterThan(quantity('1'))", "--backend", backend
    )
    assert code == 0
    assert out.startswith("true  (bool, ") and out.rstrip().endswith(" us)")


def test_the_object_from_a_yaml_file() -> None:
    code, out, _ = run(
        "eval", "object.spec.replicas", "--object", str(EXAMPLES / "apps" / "demo-http.yaml")
    )
    assert (code, out.split("  ")[0]) == (0, "6")


@pytest.mark.parametrize("backend", ["cel-expr", "cel-python"])
def test_a_batch_in_order_as_json(tmp_path: Path, backend: str) -> None:
    batch = tmp_path / "cases.jsonl"
    lines = [
        {"expr": "1 + 1"},
        # a null is there and null, as in Kubernetes admission
        {"expr": "has(object.a) && object.a == null", "vars": {"object": {"a": None}}},
        {"expr": "params.max > 3", "vars": {"params": {"max": 5}}},
        {"expr": "[3, 1].min()"},
        {"expr": "1 +"},
    ]
    batch.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    code, out, _ = run("eval", "--batch", str(batch), "--output", "json", "--backend", backend)
    results = json.loads(out)
    assert code == 1  # one expression did not evaluate
    assert [r["value"] for r in results] == [2, True, True, 1, None]
    assert [r["error"] is None for r in results] == [True, True, True, True, False]
    assert results[4]["error"].startswith("does not compile")


def test_vars_and_what_no_engine_represents() -> None:
    code, out, _ = run("eval", "params.n", "--var", 'params={"n": 18446744073709551616}')
    assert code == 1 and "params.n 18446744073709551616 is outside CEL's int range" in out
    code, out, _ = run("eval", "x", "--var", "x=1")
    assert code == 1 and "unknown variable x" in out


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["eval"], id="neither-expression-nor-batch"),
        pytest.param(["eval", "1", "--var", "params"], id="var-without-json"),
        pytest.param(["eval", "1", "--var", "params={"], id="var-not-json"),
    ],
)
def test_usage_errors(argv: list[str]) -> None:
    code, _, err = run(*argv)
    assert code == 2 and err.startswith("fedgate: ")


def test_export_writes_the_objects_and_says_where_every_rule_runs(tmp_path: Path) -> None:
    target = tmp_path / "vaps.yaml"
    code, out, err = run("export", "--out", str(target))
    assert code == 0 and out == ""
    assert "vap      image-tag: reads only object, oldObject, request and params" in err
    assert "webhook  registry-allowed: reads fedgate's tenant" in err
    text = target.read_text()
    assert text.startswith("# fedgate cel export") and text.count("\n---\n") == 7
    code, out, _ = run("export", "--out", str(target), "--output", "json")
    placements = json.loads(out)
    assert {p["rule"] for p in placements if p["where"] == "vap"} == {
        "image-tag",
        "pod-security-baseline",
        "resource-requests",
        "stateful-purge",
    }

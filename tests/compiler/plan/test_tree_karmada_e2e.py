"""Karmada's own end-to-end tests (``tests/webhook/karmada/cases/e2e.yaml``, ported from
karmada-io/karmada v1.18.0 test/e2e/suites/base/*_test.go, each case naming its file and its
Describe / Context / It) through ``fedgate plan --tree DIR --policies BUNDLE --output json``:
the tree the suite builds, and on the plan's member copies what the It asserts on the member
clusters."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jsonpointer
import pytest
import yaml

from tests.compiler.plan.test_tree_karmada import plan_tree
from tests.e2e.karmada_cases import isolate
from tests.webhook.karmada.tables import e2e_cases, e2e_clusters, template_key, write_bundle

_MISSING = object()


def _at(obj: Any, pointer: str) -> Any:
    return jsonpointer.resolve_pointer(obj, pointer, _MISSING)


@pytest.mark.parametrize("row", e2e_cases())
def test_karmada_e2e_through_plan_tree(row: dict[str, Any], tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path / "bundle", e2e_clusters(row))
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "objects.yaml").write_text(yaml.safe_dump_all(row["objects"]))
    code, report = plan_tree(tree, bundle)
    planned = {template_key(t): t for t in report["templates"]}
    for key, want in row["expect"].items():
        template = planned[key]
        assert template["violations"] == {}
        if "placement" in want:
            assert sorted(template["placement"]) == sorted(want["placement"]), key
            assert sorted(template["clusters"]) == sorted(want["placement"]), key
        if "suspended" in want:
            assert template["suspendedDispatching"] == want["suspended"], key
        if "propagateDeps" in want:
            assert template["propagateDeps"] is want["propagateDeps"], key
        if "policy" in want:
            policy = template["policy"]
            assert (policy["name"] if policy else None) == want["policy"], key
        for cluster, copy in template["clusters"].items():
            where = f"{key} on {cluster}"
            for pointer, value in want.get("equals", {}).items():
                assert _at(copy, pointer) == value, f"{where}: {pointer}"
            for pointer in want.get("absent", []):
                assert _at(copy, pointer) is _MISSING, f"{where}: {pointer}"
            for pointer, parts in want.get("contains", {}).items():
                for part in parts:
                    assert part in _at(copy, pointer), f"{where}: {pointer} lacks {part!r}"
            for pointer, parts in want.get("excludes", {}).items():
                for part in parts:
                    assert part not in _at(copy, pointer), f"{where}: {pointer} has {part!r}"
    assert code == 0


@pytest.mark.parametrize("row", e2e_cases())
def test_an_isolated_case_plans_as_karmada_s_e2e_says(row: dict[str, Any], tmp_path: Path) -> None:
    """tests/e2e/test_karmada_cases.py applies many cases at once, each moved to names of its
    own (karmada_cases.isolate): the moved tree's plan still meets the case's expectations,
    renamed alike."""
    index = [p.values[0] for p in e2e_cases()].index(row)
    case = isolate(index, "", row)
    test_karmada_e2e_through_plan_tree(
        {**row, "objects": case.objects, "expect": case.expect}, tmp_path
    )


_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


@pytest.mark.parametrize("row", e2e_cases())
def test_each_karmada_policy_of_a_case_has_a_name_the_api_server_takes(row: dict[str, Any]) -> None:
    """Karmada's policies are custom resources: the API server takes only a DNS subdomain for
    their names (a live federation refused a ClusterPropagationPolicy the port had named
    "system:test-e2e-01"; the suite names it after its ClusterRole, "clusterrole-<random>")."""
    for obj in row["objects"]:
        if obj["apiVersion"].startswith("policy.karmada.io/"):
            name = obj["metadata"]["name"]
            assert _DNS_SUBDOMAIN.fullmatch(name) and len(name) <= 253, name

"""Variations of Karmada's cases (``tests/webhook/karmada/cases/variations.yaml``, each naming
the Karmada v1.18.0 code that decides it) through ``fedgate plan --tree DIR --policies BUNDLE
--output json``: the same rows as tests/webhook/karmada/test_variations.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.compiler.plan.test_tree_karmada import plan_tree, refused_in
from tests.webhook.karmada.tables import (
    Observed,
    check_variation,
    template_key,
    variation_cases,
    variation_clusters,
    write_bundle,
)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_bundle(tmp_path_factory.mktemp("bundle"), variation_clusters())


@pytest.mark.parametrize("row", variation_cases())
def test_variation_through_plan_tree(row: dict[str, Any], bundle: Path, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "objects.yaml").write_text(yaml.safe_dump_all(row["objects"]))
    code, report = plan_tree(tree, bundle)
    planned = {template_key(t): t for t in report["templates"]}
    failing = False
    for key, want in row["expect"].items():
        template = planned[key]
        policy = template["policy"]
        seen = Observed(
            policy=policy["name"] if policy else None,
            placement=tuple(template["placement"]),
            clusters=template["clusters"],
            overrides={c: tuple(o) for c, o in template["overrides"].items()},
            suspended=tuple(template["suspendedDispatching"]),
        )
        check_variation(want, seen, key)
        for cluster in want.get("failed", []):
            [violation] = template["violations"][cluster]
            assert violation["rule"] == "karmada.override", key
            failing = True
    refused = row.get("refused", [])
    for policy in refused:
        assert refused_in(report, policy), policy
    assert len(report["errors"]) >= len(refused)
    if not refused:
        assert report["errors"] == []
    assert code == (1 if failing or refused else 0)

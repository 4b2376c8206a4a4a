"""Variations of Karmada's cases (``tests/webhook/karmada/cases/variations.yaml``, each naming
the Karmada v1.18.0 code that decides it) through ``fedgate plan --tree DIR --policies BUNDLE
--output json``: the same rows as tests/webhook/karmada/test_variations.py."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from compiler.cli import main
from compiler.compile.canonical import dump
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
    # canonical YAML: PyYAML's dumper leaves y and n plain, which Argo CD reads as booleans
    (tree / "objects.yaml").write_bytes(b"".join(b"---\n" + dump(o) for o in row["objects"]))
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
    if not refused:
        assert report["warnings"] == []
    assert report["errors"] == []
    assert code == (1 if failing else 0)


def test_a_refused_policy_is_a_warning_in_the_text_report(bundle: Path, tmp_path: Path) -> None:
    """The text report names the policy Karmada's API would refuse and why, and its verdict
    stays the rules' (exit 0 here: nothing denies)."""
    [row] = [r.values[0] for r in variation_cases() if "imageOverrider with no operator" in r.id]
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "objects.yaml").write_bytes(b"".join(b"---\n" + dump(o) for o in row["objects"]))
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(
        ["plan", "--tree", str(tree), "--policies", str(bundle)], stdout=stdout, stderr=stderr
    )
    text = stdout.getvalue()
    assert code == 0, text
    words = " ".join(text.split())  # the report wraps at 100 columns
    assert "warning: objects.yaml:" in words
    assert "Karmada refuses ClusterOverridePolicy no-op (operator is required (CRD))" in words

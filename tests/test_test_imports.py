"""Tests import what they share from helper modules (tests/helpers.py, tests/<area>/<name>.py),
never from another test module: importing a test module runs its collection-time work and
couples two test files. The pairs below predate the rule and are still to move."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

STILL_TO_MOVE = {
    ("compiler/commands/test_plan.py", "compiler.plan.test_failover"),
    ("compiler/commands/test_plan.py", "compiler.plan.test_failover_capacity"),
    ("compiler/plan/test_exact.py", "compiler.plan.test_failover"),
    ("compiler/plan/test_exact.py", "compiler.plan.test_failover_capacity"),
    ("compiler/plan/test_exact.py", "compiler.plan.test_failover_spread"),
    ("compiler/plan/test_failover_capacity.py", "compiler.plan.test_failover"),
    ("compiler/plan/test_failover_pages.py", "compiler.plan.test_failover"),
    ("compiler/plan/test_failover_spread.py", "compiler.plan.test_failover"),
    ("compiler/plan/test_failover_spread.py", "compiler.plan.test_failover_capacity"),
    ("compiler/plan/test_failover_worse.py", "compiler.plan.test_failover"),
    ("compiler/plan/test_tree.py", "compiler.plan.test_plan"),
    ("compiler/plan/test_tree_karmada.py", "webhook.karmada.test_goyaml"),
    ("compiler/plan/test_tree_karmada.py", "webhook.karmada.test_imageparser"),
    ("compiler/plan/test_tree_karmada_e2e.py", "compiler.plan.test_tree_karmada"),
    ("compiler/plan/test_tree_karmada_variations.py", "compiler.plan.test_tree_karmada"),
    ("oracles/test_karmada_division.py", "webhook.karmada.test_assign"),
    ("oracles/test_karmada_oracle.py", "webhook.karmada.test_typed"),
    ("webhook/engine/cel/kubernetes_tables.py", "webhook.engine.cel.test_cel_go_extensions"),
    ("webhook/engine/cel/kubernetes_tables.py", "webhook.engine.cel.test_kubernetes_libraries"),
    ("webhook/engine/cel/kubernetes_tables.py", "webhook.engine.cel.test_strings"),
    ("webhook/engine/test_shortcuts.py", "webhook.engine.test_targets_property"),
}
"""(importing file, imported test module), both under tests/, still to move into helper modules;
do not add to it."""


def _is_test_module(dotted: str) -> bool:
    return dotted.startswith("tests.") and dotted.rsplit(".", 1)[-1].startswith("test_")


def imports_of_test_modules(root: Path) -> set[tuple[str, str]]:
    """(file, test module it imports), both under tests/, for every such import."""
    found = set()
    for path in sorted((root / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in filter(_is_test_module, names):
                found.add((str(path.relative_to(root / "tests")), name.removeprefix("tests.")))
    return found


def test_no_new_test_module_imports_a_test_module() -> None:
    found = imports_of_test_modules(ROOT)
    assert found - STILL_TO_MOVE == set(), "move what is shared into a helper module"
    assert STILL_TO_MOVE - found == set(), "moved: take these pairs off STILL_TO_MOVE"


def test_the_scan_sees_both_import_forms(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_b.py").write_text(
        "from tests.test_a import X\nfrom tests import test_c\nimport tests.test_d\n"
        "from tests.helpers import git\n"
    )
    assert imports_of_test_modules(tmp_path) == {
        ("test_b.py", "test_a"),
        ("test_b.py", "test_c"),
        ("test_b.py", "test_d"),
    }

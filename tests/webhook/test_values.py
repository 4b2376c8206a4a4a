"""The value classes built on every request: frozen to mypy, plain dataclass speed at run time."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from webhook.base.values import is_mapping
from webhook.engine.decision import Decision
from webhook.engine.request import GroupVersionKind, UserInfo

ROOT = Path(__file__).resolve().parents[2]


def test_values_compare_and_hash_by_their_fields() -> None:
    kind = GroupVersionKind("apps", "v1", "Deployment")
    assert kind == GroupVersionKind("apps", "v1", "Deployment")
    assert hash(kind) == hash(GroupVersionKind("apps", "v1", "Deployment"))
    assert len({UserInfo("alice", ("team-a",)), UserInfo("alice", ("team-a",))}) == 1
    assert replace(Decision(allowed=True), allowed=False) == Decision(allowed=False)
    assert not hasattr(kind, "__dict__")  # slotted: no stray attribute can be set either


def test_mypy_refuses_assigning_a_field(tmp_path: Path) -> None:
    """What ``statically_frozen`` promises instead of a run-time trap: CI's mypy run fails on
    any assignment to a field of these classes."""
    api = pytest.importorskip("mypy.api", reason="mypy is a dev dependency (make test has it)")
    snippet = tmp_path / "assign.py"
    snippet.write_text(
        textwrap.dedent(
            """
            from webhook.engine.decision import Decision
            from webhook.engine.request import GroupVersionKind

            kind = GroupVersionKind("apps", "v1", "Deployment")
            kind.kind = "StatefulSet"
            decision = Decision(allowed=True)
            decision.allowed = False
            """
        )
    )
    out, _, status = api.run(
        [
            "--strict",
            "--no-incremental",
            "--cache-dir=/dev/null",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            str(snippet),
        ]
    )
    assert status == 1, out
    assert 'Property "kind" defined in "GroupVersionKind" is read-only' in out, out
    assert 'Property "allowed" defined in "Decision" is read-only' in out, out


def test_is_mapping() -> None:
    assert is_mapping({}) and is_mapping(type("M", (dict,), {})())
    assert not is_mapping([]) and not is_mapping("a")

"""``fedgate test`` refuses a malformed suite instead of passing it with no cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.compiler.commands.entry import fedgate, no_traceback
from tests.conftest import POLICIES


@pytest.mark.parametrize(
    ("text", "messages"),
    [
        pytest.param(
            "cases: 5\n",
            [
                "suite/tests.yaml:1: cases: must be a list of cases "
                "({name, request or operation, ...})"
            ],
            id="cases-a-number",
        ),
        pytest.param(
            '"abc"\n', ["suite/tests.yaml:1: must be a mapping, not a string"], id="string"
        ),
        pytest.param(
            "{a: 1}\n",
            [
                "suite/tests.yaml:1: cases is required",
                "suite/tests.yaml:1: a: unknown key 'a'; known keys: cases, objects, users",
            ],
            id="mapping",
        ),
        pytest.param("true\n", ["suite/tests.yaml:1: must be a mapping, not a boolean"], id="bool"),
        pytest.param(
            "cases: []\n",
            ["suite/tests.yaml:1: cases: lists no case: a suite must test something"],
            id="no-case",
        ),
        pytest.param(
            "objects: 5\ncases: [{name: x, expect: {allowed: true}}]\n",
            ["suite/tests.yaml:1: objects: must be a mapping, not a number"],
            id="objects-a-number",
        ),
    ],
)
def test_a_malformed_suite_is_an_error(tmp_path: Path, text: str, messages: list[str]) -> None:
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "tests.yaml").write_text(text)
    result = fedgate("test", "suite", "--policies", str(POLICIES), cwd=tmp_path)
    no_traceback(result)
    assert result.returncode == 1
    assert result.stderr.splitlines()[:-1] == messages
    assert "passed" not in result.stdout


def test_a_malformed_fixtures_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "fixtures.yaml").write_text("objects: [1\n")
    (tmp_path / "suite" / "tests.yaml").write_text("cases: [{name: x, expect: {allowed: true}}]\n")
    result = fedgate("test", "suite", "--policies", str(POLICIES), cwd=tmp_path)
    no_traceback(result)
    assert result.returncode == 1
    assert result.stderr.startswith("suite/fixtures.yaml:2:1: not valid YAML")


def test_an_empty_directory_is_an_error_in_json_too(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = fedgate("test", "empty", "--policies", str(POLICIES), "--output", "json", cwd=tmp_path)
    assert result.returncode == 2
    assert json.loads(result.stdout)["errors"][0]["message"] == "no tests.yaml under empty"


def test_one_suite_is_one_suite(tmp_path: Path) -> None:
    suite = POLICIES / "rules" / "image-tag" / "tests.yaml"
    result = fedgate("test", str(suite), "--policies", str(POLICIES), cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith("1 suite: ")

"""`make demo` works: compile, check, suites, the webhook over HTTPS, every request as expected."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import EXAMPLES, ROOT

pytestmark = pytest.mark.slow  # runs make demo: the webhook included


def test_demo_runs_end_to_end() -> None:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "demo.py")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    requests = sorted((EXAMPLES / "requests").glob("*.json"))
    decided = [
        line for line in result.stdout.splitlines() if line.startswith(("ALLOWED ", "DENIED  "))
    ]
    assert len(decided) == len(requests)
    assert "NOT AS EXPECTED" not in result.stdout
    assert "the webhook stopped" in result.stdout

"""Every test that starts a process carries the ``slow`` mark, so ``pytest -m "not slow"`` is
the fast inner loop docs/contributing.md promises; read from the source (tests/processes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.processes import unmarked


def test_every_test_that_starts_a_process_is_marked_slow() -> None:
    assert unmarked(ROOT) == [], (
        "these tests start a process (subprocess, git, fedgate serve, a Go oracle, ...): mark "
        "them @pytest.mark.slow, or the module with pytestmark = pytest.mark.slow"
    )


HELPER = """
import subprocess


def git(*args):
    return subprocess.run(["git", *args], check=True)


class Oracle:
    def __enter__(self):
        self.process = subprocess.Popen(["oracle"])
        return self
"""

CONFTEST = """
import pytest
from tests.helper import git


@pytest.fixture
def repo(tmp_path):
    git("init", str(tmp_path))
    return tmp_path
"""


@pytest.mark.parametrize(
    ("test_module", "flagged"),
    [
        ("import subprocess\ndef test_a():\n    subprocess.run(['true'])\n", ["test_a"]),
        ("import subprocess as sp\ndef test_a():\n    sp.Popen(['true'])\n", ["test_a"]),
        ("import os\ndef test_a():\n    os.system('true')\n", ["test_a"]),
        ("def test_a():\n    assert 1\n", []),
        ("from tests.helper import git\ndef test_a():\n    git('status')\n", ["test_a"]),
        ("from tests import helper\ndef test_a():\n    helper.git('status')\n", ["test_a"]),
        ("from tests.helper import Oracle\ndef test_a():\n    Oracle()\n", ["test_a"]),
        ("def test_a(repo):\n    assert repo\n", ["test_a"]),
        ("def test_a(tmp_path):\n    assert tmp_path\n", []),
        (
            "import pytest\n@pytest.mark.usefixtures('repo')\ndef test_a():\n    assert 1\n",
            ["test_a"],
        ),
        (
            "from tests.helper import git\ndef setup():\n    git('init')\n"
            "def test_a():\n    setup()\ndef test_b():\n    assert 1\n",
            ["test_a"],
        ),
        (
            "import pytest\nfrom tests.helper import git\npytestmark = pytest.mark.slow\n"
            "def test_a():\n    git('init')\n",
            [],
        ),
        (
            "import pytest\nfrom tests.helper import git\n@pytest.mark.slow\n"
            "def test_a():\n    git('init')\n",
            [],
        ),
        (
            "import pytest\nfrom tests.helper import git\n@pytest.mark.slow\nclass TestA:\n"
            "    def test_a(self):\n        git('init')\n",
            [],
        ),
        (
            "from tests.helper import git\nclass TestA:\n    def go(self):\n        git('init')\n"
            "    def test_a(self):\n        self.go()\n",
            ["TestA::test_a"],
        ),
    ],
)
def test_the_scan_follows_calls_helpers_and_fixtures(
    tmp_path: Path, test_module: str, flagged: list[str]
) -> None:
    (tmp_path / "tests" / "sub").mkdir(parents=True)
    (tmp_path / "tests" / "helper.py").write_text(HELPER)
    (tmp_path / "tests" / "conftest.py").write_text(CONFTEST)
    (tmp_path / "tests" / "sub" / "test_it.py").write_text(test_module)
    assert unmarked(tmp_path) == [f"tests/sub/test_it.py::{name}" for name in flagged]

"""Every file in examples/ is collected: good apps compile, bad ones fail with their message."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT
from tests.helpers import run

BAD = sorted((EXAMPLES / "bad").glob("*.yaml"))
GOOD = sorted((EXAMPLES / "apps").glob("*.yaml"))


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # messages name files as given: relative to the repository


@pytest.mark.usefixtures("at_root")
@pytest.mark.parametrize("spec", BAD, ids=[p.stem for p in BAD])
def test_bad_example_fails_with_its_message(spec: Path, tmp_path: Path) -> None:
    relative = os.path.relpath(spec, ROOT)
    code, _, err = run(["compile", relative, "--out", str(tmp_path / "out")])
    assert code == 1
    assert err == spec.with_suffix(".expected").read_text()
    assert not (tmp_path / "out").exists()  # nothing written, not even the directory


def test_every_bad_example_has_its_expected_message() -> None:
    assert BAD
    expected = sorted((EXAMPLES / "bad").glob("*.expected"))
    assert [p.stem for p in expected] == [p.stem for p in BAD]


@pytest.mark.usefixtures("at_root")
@pytest.mark.parametrize("spec", GOOD, ids=[p.stem for p in GOOD])
def test_good_example_compiles_alone(spec: Path, tmp_path: Path) -> None:
    code, out, err = run(["compile", str(spec), "--out", str(tmp_path)])
    assert (code, err) == (0, "")
    assert "compiled 1 app into" in out


def test_all_examples_compile_together(tmp_path: Path) -> None:
    code, out, err = run(["compile", str(EXAMPLES / "apps"), "--out", str(tmp_path)])
    assert (code, err) == (0, "")
    assert f"compiled {len(GOOD)} apps into" in out

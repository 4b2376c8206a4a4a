"""The ``fedgate`` executable ends a short-lived command with ``os._exit`` once its output is
flushed (``compiler.cli.entry``): nothing it printed may be lost, whatever the exit code, and
``serve`` keeps Python's defaults."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from compiler import cli
from compiler.cli import SHORT_LIVED_GC_THRESHOLD, entry
from tests.compiler.commands.entry import FEDGATE, environment
from tests.conftest import EXAMPLES


def _buffered() -> dict[str, str]:
    """The environment with stdout block-buffered, as a user's shell has it (this sandbox sets
    PYTHONUNBUFFERED, which would hide a lost buffer)."""
    return {k: v for k, v in environment().items() if k != "PYTHONUNBUFFERED"}


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(FEDGATE), *args],
        cwd=cwd,
        env=_buffered(),
        capture_output=True,
        check=False,
        timeout=300,
    )


@pytest.mark.slow
def test_a_large_output_through_a_pipe_is_whole(tmp_path: Path) -> None:
    """Rendering the examples to stdout (the CMP's way) writes several buffers' worth;
    the bytes must be those `python -m compiler` gives with a normal exit."""
    fast = _run("compile", str(EXAMPLES / "apps"), "--out", "-", "--example-policies", cwd=tmp_path)
    assert fast.returncode == 0, fast.stderr
    assert (
        len(fast.stdout) > 3 * 8192
    )  # several of stdout's 8 KiB buffers, the last one flushed by entry()
    normal = subprocess.run(
        [sys.executable, "-c", "import sys; from compiler.cli import main; sys.exit(main())",
         "compile", str(EXAMPLES / "apps"), "--out", "-", "--example-policies"],
        cwd=tmp_path, env=_buffered(), capture_output=True, check=False, timeout=300,
    )  # fmt: skip
    assert (normal.returncode, normal.stdout) == (0, fast.stdout)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--version"], 0),
        (["review", "nope.json", "--example-policies"], 1),
        (["compile", "--bogus"], 2),
    ],
)
def test_the_exit_code_and_the_message_survive(tmp_path: Path, args: list[str], code: int) -> None:
    result = _run(*args, cwd=tmp_path)
    assert result.returncode == code
    assert (result.stdout + result.stderr).strip(), "something is said"


@pytest.mark.slow
def test_python_dash_m_is_the_same_entry(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "compiler", "--version"],
        cwd=tmp_path, env=_buffered(), capture_output=True, check=False, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0 and result.stdout.startswith(b"fedgate ")


def test_a_short_lived_command_raises_the_collector_threshold_and_serve_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In-process, with os._exit and main replaced: what entry() sets before running main."""
    seen: dict[str, int] = {}
    before = cli.gc.get_threshold()
    monkeypatch.setattr(
        cli, "main", lambda: seen.setdefault("threshold", cli.gc.get_threshold()[0])
    )

    def leave(code: int) -> None:
        raise SystemExit(code)

    monkeypatch.setattr(cli.os, "_exit", leave)
    try:
        monkeypatch.setattr(sys, "argv", ["fedgate", "check"])
        with pytest.raises(SystemExit):
            entry()
        assert seen.pop("threshold") == SHORT_LIVED_GC_THRESHOLD
        cli.gc.set_threshold(*before)
        monkeypatch.setattr(sys, "argv", ["fedgate", "serve", "--help"])
        with pytest.raises(SystemExit):
            entry()
        assert seen.pop("threshold") == before[0]
    finally:
        cli.gc.set_threshold(*before)

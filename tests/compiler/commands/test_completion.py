"""``fedgate completion SHELL``: scripts the shells themselves accept, naming every command."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.compiler.commands.entry import fedgate

pytestmark = pytest.mark.slow  # runs the fedgate command line and bash as processes

CHECKERS = {"bash": ["bash", "-n"], "zsh": ["zsh", "-n"], "fish": ["fish", "--no-execute"]}


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_script(tmp_path: Path, shell: str) -> None:
    result = fedgate("completion", shell, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    for word in ("compile", "check", "plan", "review", "serve", "init", "--out", "--policies"):
        assert word in result.stdout, word
    if shutil.which(CHECKERS[shell][0]) is None:
        pytest.skip(f"{shell} is not installed here: the script's syntax is not checked")
    script = tmp_path / f"fedgate.{shell}"
    script.write_text(result.stdout)
    checked = subprocess.run(
        [*CHECKERS[shell], str(script)], capture_output=True, text=True, timeout=30, check=False
    )
    assert checked.returncode == 0, checked.stderr


def test_bash_completes_the_commands(tmp_path: Path) -> None:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed here")
    script = tmp_path / "fedgate.bash"
    script.write_text(fedgate("completion", "bash", cwd=tmp_path).stdout)
    probe = (
        f"source {script}; COMP_WORDS=(fedgate co); COMP_CWORD=1; COMP_LINE='fedgate co'; "
        "COMP_POINT=10; _shtab_fedgate fedgate co fedgate; printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    result = subprocess.run(
        ["bash", "-c", probe], capture_output=True, text=True, timeout=30, check=False
    )
    assert sorted(result.stdout.split()) == ["compile", "completion"], result.stderr

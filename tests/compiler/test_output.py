"""Terminal conventions, through the installed entry point under a real pseudo-terminal:
colour and progress only for a terminal that wants them; NO_COLOR, TERM=dumb and pipes get no
ANSI escape at all."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import threading
from pathlib import Path

import pytest

from compiler.output import Output, color_wanted, interactive, plural
from tests.compiler.commands.entry import FEDGATE, environment, fedgate, platform

ESCAPE = b"\x1b["


def in_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes]:
    """Run fedgate with stdout and stderr on a pseudo-terminal; everything it wrote there."""
    main, terminal = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the terminal's last writer has gone
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    process = subprocess.Popen(
        [str(FEDGATE), *args], cwd=cwd, env=environment(env), stdout=terminal, stderr=terminal
    )
    os.close(terminal)
    code = process.wait(timeout=120)
    reader.join(timeout=30)
    os.close(main)
    return code, b"".join(chunks)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repository = platform(tmp_path_factory.mktemp("colour"))
    assert fedgate("compile", cwd=repository).returncode == 0
    (repository / "apps" / "status-page.yaml").write_text(
        (repository / "apps" / "status-page.yaml").read_text().replace("replicas: 2", "replicas: 3")
    )
    return repository


@pytest.mark.slow
@pytest.mark.parametrize(
    ("env", "escapes"),
    [
        pytest.param({"TERM": "xterm-256color"}, True, id="a-terminal-gets-colour"),
        pytest.param({"TERM": "xterm-256color", "NO_COLOR": "1"}, False, id="NO_COLOR"),
        pytest.param({"TERM": "dumb"}, False, id="TERM-dumb"),
    ],
)
def test_plan_colours_only_a_terminal_that_wants_it(
    repo: Path, env: dict[str, str], escapes: bool
) -> None:
    code, output = in_terminal(["plan", "--diff"], repo, env)
    assert code == 0, output[-2000:]
    assert (ESCAPE in output) is escapes
    assert b"replicas: 3" in output


@pytest.mark.slow
def test_a_pipe_gets_no_escapes(repo: Path) -> None:
    result = fedgate("plan", cwd=repo, env={"TERM": "xterm-256color"})
    assert result.returncode == 0
    assert "\x1b[" not in result.stdout + result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("env", "bar"),
    [
        pytest.param({"TERM": "xterm-256color"}, True, id="terminal-bar"),
        pytest.param({"TERM": "xterm-256color", "NO_COLOR": "1"}, False, id="NO_COLOR-counter"),
        pytest.param({"TERM": "dumb"}, False, id="dumb-counter"),
    ],
)
def test_progress_on_a_terminal(repo: Path, env: dict[str, str], bar: bool) -> None:
    code, output = in_terminal(["compile", "--no-cache", "--out", "elsewhere"], repo, env)
    assert code == 0, output[-2000:]
    assert (ESCAPE in output) is bar
    if not bar:
        assert b"\rcompiling 7/7" in output


def test_the_rules_of_colour() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, pipe = Terminal(), io.StringIO()
    assert color_wanted(tty, "auto", {"TERM": "xterm"})
    assert not color_wanted(tty, "auto", {"TERM": "xterm", "NO_COLOR": "x"})
    assert color_wanted(tty, "auto", {"TERM": "xterm", "NO_COLOR": ""})  # set but empty
    assert not color_wanted(tty, "auto", {"TERM": "dumb"})
    assert not color_wanted(pipe, "auto", {"TERM": "xterm"})
    assert color_wanted(pipe, "always", {"NO_COLOR": "1"})  # an explicit flag wins
    assert not color_wanted(tty, "never", {"TERM": "xterm"})
    assert interactive(tty, {}) and not interactive(pipe, {})
    with Output(pipe, pipe, "text").progress("x") as progress:
        assert progress is None  # nothing at all for a pipe


@pytest.mark.parametrize(
    ("count", "text"),
    [(0, "0 apps"), (1, "1 app"), (2, "2 apps")],
)
def test_plural(count: int, text: str) -> None:
    assert plural(count, "app") == text

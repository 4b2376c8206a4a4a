"""The README's quickstart is a test: every line of its block but those marked ``# install``
runs as written, in order, in a fresh directory, with the installed ``fedgate`` on PATH, real
git, the real pre-commit framework and the webhook on a free port of 127.0.0.1; each step's exit
status and key output are what the README says they are.

A line ending in ``&`` starts in the background (in a process group of its own, stopped by
``kill %1`` or at the end whatever happens); ``cd DIR`` moves the steps that follow; a line
ending in ``\\`` continues on the next, and a here-document is part of its command.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.compiler.commands.entry import BIN, environment
from tests.conftest import ROOT

pytestmark = pytest.mark.slow

_BLOCK = re.compile(r"<!-- quickstart -->\n```sh\n(.*?)```\n<!-- /quickstart -->", re.DOTALL)
_INSTALL = re.compile(r"#\s*install\b")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1")
PORT = "127.0.0.1:8443"  # the README's address; the test serves on a free port instead


@dataclass(frozen=True)
class Expect:
    """One step: its command as the README writes it (first line, comment removed), the exit
    status it must have, and text (or regular expressions) its output must hold."""

    command: str
    status: int = 0
    output: tuple[str, ...] = ()
    patterns: tuple[str, ...] = field(default=())


HOOK_PASSED = r"fedgate check\.+Passed"
EXPECTED = [
    Expect("git init platform"),
    Expect("cd platform"),
    Expect(
        "fedgate init",
        output=("apps/hello.yaml", "pre-commit hook: installed (pre-commit install)"),
    ),
    Expect(
        "fedgate compile", output=("compiled 1 app into", "added    rendered/platform-demo/hello/")
    ),
    Expect(
        "fedgate plan",
        output=(
            "+ platform-demo/hello",
            "cluster-a    2 x registry.example.com/platform/hello:1.0",
            "cluster-b    2 x registry.example.com/platform/hello:1.0",
            "Plan: 1 app to add, 0 to change, 0 to remove",
            "0 denies",
        ),
    ),
    Expect("fedgate check", output=("rendered/ up to date", "would all be admitted")),
    Expect("git add -A"),
    Expect('git commit -m "a fedgate platform repository"', patterns=(HOOK_PASSED,)),
    Expect("perl -pi -e 's/replicas: 4/replicas: 6/' apps/hello.yaml"),
    Expect(
        'git commit -am "six replicas"',
        status=1,
        output=("stale    rendered/platform-demo/hello/deployment.yaml", "rendered/ STALE"),
        patterns=(r"fedgate check\.+Failed",),
    ),
    Expect("fedgate compile", output=("changed  rendered/platform-demo/hello/deployment.yaml",)),
    Expect(
        "fedgate plan",
        output=(
            "~ platform-demo/hello",
            "placement    cluster-a 2 -> 3, cluster-b 2 -> 3",
            "Plan: 0 apps to add, 1 to change, 0 to remove",
        ),
    ),
    Expect('git commit -am "six replicas"', patterns=(HOOK_PASSED,)),
    Expect("cat > delete-hello.json <<'EOF'"),
    Expect(
        "fedgate review delete-hello.json",
        status=1,
        output=(
            "DENIED  DELETE apps/v1 Deployment platform-demo/hello by alice",
            "ownership.delete",
        ),
    ),
    Expect(f"fedgate serve --bind {PORT} --workers 1 &"),
    Expect(
        f"curl -s --retry 30 --retry-connrefused --retry-delay 1 http://{PORT}/readyz",
        output=('"status":"ready"',),
    ),
    Expect(
        "curl -s -H 'Content-Type: application/json' --data @delete-hello.json "
        f"http://{PORT}/validate",
        output=('"uid":"quickstart-1"', '"allowed":false', '"code":403', "[ownership.delete]"),
    ),
    Expect("kill %1"),
]


def uncomment(line: str) -> str:
    """The line without its shell comment: a # that starts a word outside quotes."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def steps(block: str) -> list[str]:
    """The block's commands, in order: comments, blank and ``# install`` lines left out."""
    lines = iter(block.splitlines())
    commands = []
    for line in lines:
        if _INSTALL.search(line):
            continue
        command = uncomment(line)
        while command.endswith("\\"):
            command = command[:-1] + uncomment(next(lines))
        heredoc = _HEREDOC.search(command)
        if heredoc:
            body = []
            for more in lines:
                body.append(more)
                if more == heredoc.group(2):
                    break
            command = "\n".join([command, *body])
        if command:
            commands.append(command)
    return commands


def quickstart() -> list[str]:
    found = _BLOCK.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert found is not None, "README.md has no <!-- quickstart --> ```sh block"
    return steps(found.group(1))


def test_the_steps_are_read_as_a_shell_reads_them() -> None:
    block = (
        "make demo   # install\n"
        "git init x  # a comment\n"
        "\n"
        "# a line of comment\n"
        "git commit -m 'not # a comment'\n"
        "echo a \\\n"
        "  b\n"
        "cat > f <<'EOF'\n"
        "# kept: a here-document is data\n"
        "EOF\n"
    )
    assert steps(block) == [
        "git init x",
        "git commit -m 'not # a comment'",
        "echo a   b",
        "cat > f <<'EOF'\n# kept: a here-document is data\nEOF",
    ]


def test_every_step_of_the_quickstart_is_checked() -> None:
    """The table below and the README's block name the same commands in the same order."""
    assert [step.splitlines()[0] for step in quickstart()] == [e.command for e in EXPECTED]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _stop(server: subprocess.Popen[bytes]) -> int:
    """Stop the process group the background step started; its exit status."""
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            return server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
    return server.wait(timeout=30)


def test_the_quickstart_runs_as_written(tmp_path: Path) -> None:
    missing = [tool for tool in ("bash", "git", "perl", "curl") if shutil.which(tool) is None] + (
        [] if (BIN / "pre-commit").exists() else ["pre-commit"]
    )
    if missing:
        pytest.skip(f"the quickstart needs {', '.join(missing)}, not installed here")
    commands = quickstart()
    assert [c.splitlines()[0] for c in commands] == [e.command for e in EXPECTED]
    address = f"127.0.0.1:{_free_port()}"
    env = environment({"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")})
    cwd = tmp_path / "quickstart"
    cwd.mkdir()
    server: subprocess.Popen[bytes] | None = None
    log = tmp_path / "serve.log"
    try:
        for written, expect in zip(commands, EXPECTED, strict=True):
            command = written.replace(PORT, address)
            if command.startswith("cd "):
                cwd = cwd / command.removeprefix("cd ").strip()
                assert cwd.is_dir(), command
                continue
            if command.endswith("&"):
                with log.open("wb") as output:
                    server = subprocess.Popen(
                        ["bash", "-c", "exec " + command.removesuffix("&").strip()],
                        cwd=cwd,
                        env=env,
                        stdout=output,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                continue
            if command == "kill %1":
                assert server is not None and server.poll() is None, log.read_text()
                _stop(server)
                assert f"Listening at: http://{address} (" in log.read_text()
                continue
            result = subprocess.run(
                ["bash", "-c", command],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            output = result.stdout + result.stderr
            assert result.returncode == expect.status, f"{expect.command}\n{output}"
            assert "Traceback" not in output, f"{expect.command}\n{output}"
            for text in expect.output:
                assert text in output, f"{expect.command}: no {text!r} in\n{output}"
            for pattern in expect.patterns:
                assert re.search(pattern, output), f"{expect.command}: no /{pattern}/ in\n{output}"
    finally:
        if server is not None:
            _stop(server)
    log_lines = subprocess.run(
        ["git", "log", "--format=%s"], cwd=cwd, env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert log_lines == ["six replicas", "a fedgate platform repository"]

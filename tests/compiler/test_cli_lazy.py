"""``fedgate COMMAND`` builds the parser of that command alone and imports only its module: it
must parse every command line exactly as the whole parser does (the same namespace, the same
usage error, the same help), and a command must not import the others."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest
from hypothesis import assume, given, settings

from compiler.cli import COMMANDS, _ParseError, build_parser
from tests.compiler.command_lines import command_lines
from tests.conftest import ROOT


def _outcome(command: str | None, argv: list[str]) -> tuple[str, object, str]:
    """What a parser makes of ``argv``: its namespace, its usage error or its exit, with what
    it printed."""
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            namespace = build_parser(command).parse_args(argv)
    except _ParseError as exc:
        return "error", (exc.usage, exc.message), printed.getvalue()
    except SystemExit as exc:
        return "exit", exc.code, printed.getvalue()
    return "parsed", sorted(vars(namespace).items()), printed.getvalue()


@settings(max_examples=300, deadline=None)
@given(argv=command_lines())
def test_one_command_parser_parses_as_the_whole_one(argv: list[str]) -> None:
    assume(argv[0] in COMMANDS)  # main builds the whole parser for anything else
    assert _outcome(argv[0], argv) == _outcome(None, argv)


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_help_is_the_whole_parser_help(command: str) -> None:
    assert _outcome(command, [command, "--help"]) == _outcome(None, [command, "--help"])


@pytest.mark.slow
def test_a_command_imports_no_other_command() -> None:
    script = (
        "import sys; from compiler.cli import main; main(['check', '--help']); "
        "print(sorted(m for m in sys.modules if m.startswith('compiler.commands.')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded = result.stdout.splitlines()[-1]
    assert loaded == "['compiler.commands.check', 'compiler.commands.common']", result.stderr

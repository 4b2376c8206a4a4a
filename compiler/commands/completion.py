"""``fedgate completion SHELL``: the shell completion script, generated from the parser."""

from __future__ import annotations

import argparse

from compiler.output import Output

NAME = "completion"
HELP = "print the shell completion script (bash, zsh, fish)"
DESCRIPTION = """\
Print a completion script for SHELL, generated from fedgate's own options (so it never lags
behind them). Install it where your shell looks:

examples:
  fedgate completion bash > ~/.local/share/bash-completion/completions/fedgate
  fedgate completion zsh > "${fpath[1]}/_fedgate"     (then: autoload -U compinit && compinit)
  fedgate completion fish > ~/.config/fish/completions/fedgate.fish
"""
USES_BUNDLE = False
SHELLS = ("bash", "zsh", "fish")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=SHELLS, metavar="SHELL", help=", ".join(SHELLS))


def run(args: argparse.Namespace, out: Output) -> int:
    import shtab  # noqa: PLC0415 - only this command needs it (25 ms of every start-up)

    from compiler.cli import build_parser  # noqa: PLC0415 - the parser this command is part of

    script = shtab.complete(build_parser(), shell=args.shell)
    if out.format == "json":
        out.json({"ok": True, "shell": args.shell, "script": script})
    else:
        out.stdout.write(script if script.endswith("\n") else script + "\n")
    return 0

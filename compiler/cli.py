"""``fedgate``: the command line. Parses arguments, calls the pure core, renders, picks the exit.

Exit codes, mapped here and nowhere else: 0 ok, 1 findings or a user error, 2 usage, 3 a bug.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn, TextIO

from compiler.output import Output, plural
from compiler.policies import resolve_policies
from webhook.base.errors import FedgateError, FindingsError, UsageError, describe_os_error

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_BUG = 0, 1, 2, 3

DESCRIPTION = """\
fedgate compiles short app specs into the Karmada manifests Argo CD syncs, and checks every
write against one rule engine (single-writer field ownership, tenant data scope, retain rules,
CEL policies).

examples:
  fedgate init                                 scaffold a platform repository here
  fedgate compile apps --out rendered          render every app spec under apps/
  fedgate compile apps --out rendered --check  exit 1 if rendered/ is not what apps/ says
  fedgate check                                the pre-commit gate: valid, current, admitted
  fedgate plan                                 replicas per cluster, what each receives, the bill
  fedgate review request.json                  one AdmissionReview through the rule engine
  kubectl get deploy -A -o yaml | fedgate audit -   what the bundle would now deny of live objects
  fedgate trace platform-demo/demo-http        a template's live chain against its plan
  fedgate test policies/                       run the policy test suites
  fedgate cel eval "object.spec.replicas <= 10" --object deploy.yaml   try a CEL expression
  fedgate serve --certfile tls.crt --keyfile tls.key   the admission webhook
  fedgate completion bash                      shell completion (bash, zsh, fish)

Every command takes --output text|json (errors too are JSON on stdout then), and those that
read the policy bundle --policies DIR (default: $FEDGATE_POLICIES, else policies/ of the
repository; --example-policies for the example world of the quickstart). Run from anywhere
inside the repository: apps/, rendered/ and policies/ are found at its root. Colour only on a
terminal, never with NO_COLOR or TERM=dumb. Exit codes: 0 ok, 1 findings or a user error, 2
usage, 3 a bug in fedgate.
"""


def _add_common(
    parser: argparse.ArgumentParser,
    *,
    bundle: bool = True,
    outputs: Sequence[str] = ("text", "json"),
) -> None:
    if bundle:
        parser.add_argument(
            "--policies",
            metavar="DIR",
            type=Path,
            help="the policy bundle (default: $FEDGATE_POLICIES, else policies/ of the repository)",
        )
        parser.add_argument(
            "--example-policies",
            action="store_true",
            help="use the example bundle shipped with fedgate (the quickstart's, for a try-out)",
        )
        parser.add_argument(
            "--today",
            metavar="YYYY-MM-DD",
            type=_day,
            help="judge the bundle's exceptions as on this day (default: today, UTC)",
        )
    parser.add_argument(
        "--output", choices=outputs, default="text", help="report format (default text)"
    )


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None


class _ParseError(Exception):
    """argparse found the command line wrong (reported by main, exit 2)."""

    def __init__(self, usage: str, message: str) -> None:
        self.usage, self.message = usage, message
        super().__init__(message)


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors handed to main (so --output json can report them)."""

    def error(self, message: str) -> NoReturn:
        raise _ParseError(self.format_usage(), f"{self.prog}: error: {message}")


COMMANDS = (
    "compile",
    "check",
    "plan",
    "review",
    "audit",
    "trace",
    "test",
    "serve",
    "bundle",
    "cel",
    "init",
    "completion",
)
"""The commands, in the order of the help; each is the module ``compiler.commands.<name>``."""


def command_module(name: str) -> ModuleType:
    """The module of one command (imported on demand: a command's imports are its own)."""
    return importlib.import_module(f"compiler.commands.{name}")


class _Version(argparse.Action):
    """``--version``, which reads the installed distribution's metadata only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(
            option_strings, dest, nargs=0, help="show program's version number and exit"
        )

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> NoReturn:
        sys.stdout.write(f"fedgate {version()}\n")  # where argparse's own version action writes
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``command`` (one of COMMANDS), the parser of that command alone,
    which parses its command lines exactly as the whole one does and imports only its module
    (so `fedgate check` does not pay for the imports of `plan`, `serve`, `cel`, ...)."""
    parser = _Parser(
        prog="fedgate",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in map(command_module, COMMANDS if command is None else (command,)):
        sub = commands.add_parser(
            module.NAME,
            help=module.HELP,
            description=module.DESCRIPTION,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        _add_common(
            sub,
            bundle=getattr(module, "USES_BUNDLE", True),
            outputs=getattr(module, "OUTPUTS", ("text", "json")),
        )
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def version() -> str:
    """The installed distribution's version (pyproject.toml's, in a checkout's editable install)."""
    from importlib import metadata  # noqa: PLC0415 - 60 ms of imports, for --version only

    try:
        return metadata.version("fedgate")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "unknown (not installed)"


def _requested_format(argv: Sequence[str]) -> str:
    """--output as written, before parsing (so a usage error can be reported as asked)."""
    for index, arg in enumerate(argv):
        if arg == "--output" and index + 1 < len(argv):
            return "json" if argv[index + 1] == "json" else "text"
        if arg.startswith("--output="):
            return "json" if arg == "--output=json" else "text"
    return "text"


SHORT_LIVED_GC_THRESHOLD = 100_000
"""Allocations between the cyclic collector's youngest passes in a short-lived command (Python's
default is 700): a warm check builds a heap of every app's cached results, the bundle and the
index, and the collector's passes over it cost ~0.1 s of a ~1.1 s run. Reference counting still
frees everything that is not a cycle at once; cycles wait for the next (rarer) pass."""


def entry() -> NoReturn:
    """The ``fedgate`` executable (and ``python -m compiler``): ``main()``, then leave.

    A command other than ``serve`` lives for one run: the collector runs less often, and once
    its output is flushed the process ends with ``os._exit``, skipping the object-by-object
    teardown of its heap (~0.1 s of a warm check). Every file fedgate writes is written, closed
    and (for the tree) fsynced inside ``main()``; nothing is registered with ``atexit``.
    ``serve`` keeps Python's defaults and a normal exit: its workers live long."""
    arguments = sys.argv[1:]
    if arguments[:1] == ["serve"]:
        raise SystemExit(main())
    gc.set_threshold(SHORT_LIVED_GC_THRESHOLD, *gc.get_threshold()[1:])
    code = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (| head): not an error of ours
        pass
    except OSError:
        code = code or EXIT_FINDINGS
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    os._exit(code)


def main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    out_stream, err_stream = stdout or sys.stdout, stderr or sys.stderr
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments[0] if arguments and arguments[0] in COMMANDS else None)
    if not arguments:  # `fedgate` alone: what it is and what it can do
        parser.print_help(out_stream)
        return EXIT_OK
    if any("\0" in argument for argument in arguments):  # a shell cannot pass one; a caller can
        message = "fedgate: an argument contains a NUL character"
        Output(out_stream, err_stream, _requested_format(arguments)).failure(
            [_message(message)], [message]
        )
        return EXIT_USAGE
    try:
        args = parser.parse_args(arguments)
    except _ParseError as exc:
        out = Output(out_stream, err_stream, _requested_format(arguments))
        out.failure([_message(exc.message)], [exc.usage.rstrip(), exc.message])
        return EXIT_USAGE
    except SystemExit as exc:  # --help and --version
        return int(exc.code or 0)
    out = Output(out_stream, err_stream, args.output)
    try:
        return _run(args, out)
    except FindingsError as exc:
        _report_findings(out, exc)
        return EXIT_FINDINGS
    except UsageError as exc:
        out.failure([_message(str(exc))], [f"fedgate: {exc}"])
        return EXIT_USAGE
    except FedgateError as exc:
        out.failure([_message(str(exc))], [f"fedgate: {exc}"])
        return EXIT_FINDINGS
    except BrokenPipeError:  # the reader went away (| head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:  # the disk said no: a user's problem to fix, said plainly
        where = f"{exc.filename}: " if exc.filename else ""
        message = f"{where}{describe_os_error(exc)}"
        out.failure([_message(message, file=exc.filename)], [f"fedgate: {message}"])
        return EXIT_FINDINGS
    except KeyboardInterrupt:
        out.error("fedgate: interrupted")
        return 130
    except Exception:  # a bug: say so, with what a bug report needs
        out.error(traceback.format_exc())
        out.error("fedgate: internal error (a bug in fedgate); please report it with the above")
        return EXIT_BUG


def _run(args: argparse.Namespace, out: Output) -> int:
    if hasattr(args, "policies"):
        args.policies = resolve_policies(
            args.policies, example=args.example_policies, cwd=Path.cwd()
        )
    run: Callable[[argparse.Namespace, Output], int] = args.run
    return run(args, out)


def _message(text: str, *, file: str | None = None) -> dict[str, Any]:
    """An error that is not located in a file, in the shape of a located one."""
    return {"file": file, "line": None, "column": None, "path": "", "rule": None, "message": text}


def _report_findings(out: Output, exc: FindingsError) -> None:
    count, files = len(exc.findings), len({f.file for f in exc.findings})
    out.failure(
        [f.as_json() for f in exc.findings],
        [
            *(finding.render() for finding in exc.findings),
            f"{plural(count, 'error')} in {plural(files, 'file')}",
        ],
    )

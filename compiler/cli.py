"""``fedgate``: the command line. Parses arguments, calls the pure core, renders, picks the exit.

Exit codes, mapped here and nowhere else: 0 ok, 1 findings or a user error, 2 usage, 3 a bug.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from compiler.commands import cel as cel_command
from compiler.commands import check as check_command
from compiler.commands import compile as compile_command
from compiler.commands import plan as plan_command
from compiler.commands import review as review_command
from compiler.commands import serve as serve_command
from compiler.commands import test as test_command
from compiler.output import Output
from compiler.policies import default_policies
from webhook.errors import FedgateError, FindingsError, UsageError

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_BUG = 0, 1, 2, 3

DESCRIPTION = """\
fedgate compiles short app specs into the Karmada manifests Argo CD syncs, and checks every
write against one rule engine (single-writer field ownership, tenant data scope, retain rules,
CEL policies).

examples:
  fedgate compile apps --out rendered          render every app spec under apps/
  fedgate compile apps --out rendered --check  exit 1 if rendered/ is not what apps/ says
  fedgate check                                the pre-commit gate: valid, current, admitted
  fedgate plan                                 replicas per cluster, what each receives, the bill
  fedgate review request.json                  one AdmissionReview through the rule engine
  fedgate test policies/                       run the policy test suites
  fedgate cel eval "object.spec.replicas <= 10" --object deploy.yaml   try a CEL expression
  fedgate serve --certfile tls.crt --keyfile tls.key   the admission webhook

Every command takes --policies DIR (default: policies/ of the repository, else the bundled
one) and --output text|json. Exit codes: 0 ok, 1 findings, 2 usage, 3 a bug in fedgate.
"""


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--policies",
        metavar="DIR",
        type=Path,
        help="the policy bundle (default: policies/ of the repository, else the bundled one)",
    )
    parser.add_argument(
        "--output", choices=("text", "json"), default="text", help="report format (default text)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fedgate",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in (
        compile_command,
        check_command,
        plan_command,
        review_command,
        test_command,
        serve_command,
        cel_command,
    ):
        sub = commands.add_parser(
            module.NAME,
            help=module.HELP,
            description=module.DESCRIPTION,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        _add_common(sub)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    out_stream, err_stream = stdout or sys.stdout, stderr or sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help is 0, a usage error 2
        return int(exc.code or 0)
    out = Output(out_stream, err_stream, args.output)
    if args.policies is None:
        args.policies = default_policies(Path.cwd())
    run: Callable[[argparse.Namespace, Output], int] = args.run
    try:
        return run(args, out)
    except FindingsError as exc:
        _report_findings(out, exc)
        return EXIT_FINDINGS
    except UsageError as exc:
        out.error(f"fedgate: {exc}")
        return EXIT_USAGE
    except FedgateError as exc:
        out.error(f"fedgate: {exc}")
        return EXIT_FINDINGS
    except BrokenPipeError:  # the reader went away (| head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        out.error("fedgate: interrupted")
        return 130
    except Exception:  # a bug: say so, with what a bug report needs
        out.error(traceback.format_exc())
        out.error("fedgate: internal error (a bug in fedgate); please report it with the above")
        return EXIT_BUG


def _report_findings(out: Output, exc: FindingsError) -> None:
    if out.format == "json":
        out.json(
            {
                "ok": False,
                "errors": [
                    {"file": f.file, "line": f.line, "path": f.path, "message": f.message}
                    for f in exc.findings
                ],
            }
        )
    for finding in exc.findings:
        out.error(finding.render())
    count = len(exc.findings)
    files = len({f.file for f in exc.findings})
    out.error(
        f"{count} error{'s' if count != 1 else ''} in {files} file{'s' if files != 1 else ''}"
    )

"""``fedgate review``: one AdmissionReview through the rule engine, offline."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from compiler.commands.common import add_backend_argument, load_policy_bundle
from compiler.output import Output
from webhook.engine.request import parse_review
from webhook.engine.review import review
from webhook.errors import RequestError
from webhook.explain import explain
from webhook.jsontext import DuplicateKeyError, loads_unique
from webhook.yamlsource import YamlSyntaxError, parse_single

NAME = "review"
HELP = "run one AdmissionReview (JSON or YAML) through the rule engine"
DESCRIPTION = """\
Review one admission.k8s.io/v1 AdmissionReview offline, exactly as the webhook would: the same
engine, the same bundle. Text explains every violation; --output json prints the Decision.
Exit 0 when allowed, 1 when denied (or the request is malformed).

examples:
  fedgate review examples/requests/deployment-replicas-by-argocd-denied.json
  kubectl ... -o json | fedgate review - --output json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "request",
        metavar="REQUEST",
        help="an AdmissionReview file (.json, .yaml), or - for standard input",
    )
    add_backend_argument(parser)


def read_review(source: str) -> Any:
    """The document in ``source`` (a path or -); raises RequestError when it is not one."""
    text = sys.stdin.read() if source == "-" else _read(Path(source))
    repeated = False
    try:
        return loads_unique(text)
    except DuplicateKeyError:  # refused: the YAML reader names the line of the repeated key
        repeated = True
    except ValueError:  # YAML, perhaps
        pass
    try:
        return parse_single(text, source).data
    except YamlSyntaxError as exc:
        why = "a key given twice is refused" if repeated else "not JSON either"
        raise RequestError(f"{exc.finding.render()} ({why})") from None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RequestError(f"cannot read {path}: {exc}") from None


def run(args: argparse.Namespace, out: Output) -> int:
    bundle = load_policy_bundle(args)
    request = parse_review(read_review(args.request), require_uid=False)
    decision = review(request, bundle)
    if out.format == "json":
        out.json(decision.as_json())
    else:
        for line in explain(request, decision):
            out.line(line)
    return 0 if decision.allowed else 1

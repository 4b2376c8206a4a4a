"""``fedgate review``: one AdmissionReview through the rule engine, offline."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from compiler.commands.common import add_backend_argument, load_policy_bundle
from compiler.output import Output
from webhook.base.errors import RequestError, UsageError
from webhook.base.jsontext import DuplicateKeyError, loads_unique
from webhook.base.yamlsource import YamlSyntaxError, parse_single, read_text
from webhook.engine.enforcement import POINTS
from webhook.engine.request import parse_review
from webhook.engine.review import review
from webhook.explain import explain
from webhook.suites import inline_review

NAME = "review"
HELP = "run one AdmissionReview (JSON or YAML) through the rule engine"
DESCRIPTION = """\
Review one admission.k8s.io/v1 AdmissionReview offline, exactly as the webhook would: the same
engine, the same bundle. Text explains every violation; --output json prints the Decision.
Exit 0 when allowed, 1 when denied (or the request is malformed).

Without an AdmissionReview at hand, --object FILE builds the request the API server would send
for a write of that object (a Deployment, a PropagationPolicy...) by --user (and --group),
with --old-object for an UPDATE.

examples:
  fedgate review examples/requests/deployment-replicas-by-argocd-denied.json
  kubectl ... -o json | fedgate review - --output json
  fedgate review --object deployment.yaml --operation CREATE --user alice --group team-a
  fedgate review --object new.yaml --old-object old.yaml --operation UPDATE \\
      --user system:serviceaccount:kube-system:argocd-manager
"""

OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "request",
        nargs="?",
        metavar="REQUEST",
        help="an AdmissionReview file (.json, .yaml), or - for standard input",
    )
    write = parser.add_argument_group("a write built from an object instead of REQUEST")
    write.add_argument("--object", metavar="FILE", help="the object written (JSON or YAML)")
    write.add_argument("--old-object", metavar="FILE", help="the object before an UPDATE/DELETE")
    write.add_argument(
        "--operation",
        choices=OPERATIONS,
        type=str.upper,
        help="default: CREATE, UPDATE with --old-object, DELETE with only --old-object",
    )
    write.add_argument("--user", metavar="NAME", help="request.userInfo.username")
    write.add_argument(
        "--group", action="append", default=[], metavar="GROUP", help="a group (repeatable)"
    )
    write.add_argument("--namespace", metavar="NS", help="default: the object's namespace")
    write.add_argument("--sub-resource", metavar="NAME", help="e.g. scale, status")
    parser.add_argument(
        "--point",
        choices=POINTS,
        default="webhook",
        help="the enforcement point whose actions apply (default: webhook, as the request came "
        "to it); a rule's binding may set one per point",
    )
    add_backend_argument(parser)


def read_document(source: str) -> Any:
    """The document in ``source`` (a path or -); raises RequestError when it is not one."""
    try:
        text = sys.stdin.read() if source == "-" else read_text(source)
    except YamlSyntaxError as exc:
        raise RequestError(exc.finding.render()) from None
    repeated = False
    try:
        return loads_unique(text)
    except DuplicateKeyError:  # refused: the YAML reader names the line of the repeated key
        repeated = True
    except (ValueError, RecursionError):  # not JSON, or nested past Python's stack: try YAML
        pass
    try:
        return parse_single(text, source).data
    except YamlSyntaxError as exc:
        why = "a key given twice is refused" if repeated else "not JSON either"
        raise RequestError(f"{exc.finding.render()} ({why})") from None


def read_review(source: str) -> Any:
    """The AdmissionReview in ``source``; an object of another kind is refused with the command
    that reviews it as a write."""
    document = read_document(source)
    kind = document.get("kind") if isinstance(document, dict) else None
    if isinstance(kind, str) and kind != "AdmissionReview":
        raise RequestError(
            f"{source} holds a {kind} ({document.get('apiVersion', '')}), not an "
            "admission.k8s.io/v1 AdmissionReview (what the API server sends a webhook). To "
            f"review a write of it: fedgate review --object {source} --operation CREATE "
            "--user NAME [--group GROUP]"
        )
    return document


def build_review(args: argparse.Namespace) -> dict[str, Any]:
    """The AdmissionReview for a write of --object / --old-object by --user."""
    if args.request is not None:
        raise UsageError("give REQUEST or --object/--old-object, not both")
    if args.user is None:
        raise UsageError("--user NAME is required with --object (who writes decides)")
    case: dict[str, Any] = {
        "object": read_document(args.object) if args.object else None,
        "oldObject": read_document(args.old_object) if args.old_object else None,
        "operation": args.operation,
        "user": {"username": args.user, "groups": list(args.group)},
        "subResource": args.sub_resource,
    }
    for key, option in (("object", "--object"), ("oldObject", "--old-object")):
        if case[key] is not None and not isinstance(case[key], dict):
            raise RequestError(f"{option}: must hold one Kubernetes object (a mapping)")
    if args.namespace is not None:
        case["namespace"] = args.namespace
    return inline_review(case)


def run(args: argparse.Namespace, out: Output) -> int:
    if args.object is None and args.old_object is None:
        if args.request is None:
            raise UsageError("give an AdmissionReview file (REQUEST, or - for stdin) or --object")
        document = read_review(args.request)
    else:
        document = build_review(args)
    bundle = load_policy_bundle(args)
    try:
        request = parse_review(document, require_uid=False)
    except RequestError as exc:  # name the file, as every other message of review does
        if args.request is None:
            raise
        raise RequestError(f"{args.request}: {exc}") from None
    decision = review(request, bundle, point=args.point)
    if out.format == "json":
        out.json(decision.as_json())
    else:
        for line in explain(request, decision):
            out.line(line)
    return 0 if decision.allowed else 1

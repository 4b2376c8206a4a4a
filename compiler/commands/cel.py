"""``fedgate cel eval``: the rule author's evaluator, one expression or a batch."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from compiler.commands.common import load_policy_bundle
from compiler.commands.review import read_document
from compiler.compile.canonical import dump
from compiler.output import Output
from webhook.base.errors import RequestError, UsageError
from webhook.bundle.export import export
from webhook.engine.cel.engines import BACKENDS, DEFAULT_BACKEND, make_backend
from webhook.engine.cel.evaluate import Outcome, evaluate

NAME = "cel"
HELP = "evaluate CEL expressions as the rules see them (cel eval)"
DESCRIPTION = """\
fedgate cel eval EXPR evaluates one CEL expression with the same engine, libraries and
variables as a rule (a null field is there and null, as in Kubernetes admission). Text
shows the value, its CEL type and the time evaluating took; --output json prints
[{"value": v, "error": null}] or [{"value": null, "error": "message"}]. --batch FILE takes
one JSON object a line, {"expr": "...", "vars": {"object": {...}}}, and prints one result a
line's, in order.
Exit 0 when every expression evaluated, 1 when one did not.

fedgate cel export writes every CEL rule that reads only object, oldObject, request and params
as a ValidatingAdmissionPolicy and binding (--out FILE, default standard output), so the
Karmada API server runs it itself even when the webhook is unreachable; it reports where every
rule runs (vap or webhook) and why, on standard error (--output json: a JSON list).

examples:
  fedgate cel eval "object.spec.replicas <= 10" --object deployment.yaml
  fedgate cel eval "quantity('1500m').isGreaterThan(quantity('1'))"
  fedgate cel eval "params.max > 3" --var 'params={"max": 5}' --backend cel-python
  fedgate cel eval --batch cases.jsonl --output json
  fedgate cel export --out rendered/fedgate-vaps.yaml
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=("eval", "export"),
        help="eval: evaluate expressions; export: the rules a Karmada API server can run itself",
    )
    parser.add_argument("expression", nargs="?", metavar="EXPR", help="the CEL expression")
    parser.add_argument("--object", type=Path, metavar="FILE", help="object (JSON or YAML)")
    parser.add_argument("--old-object", type=Path, metavar="FILE", help="oldObject")
    parser.add_argument("--request", type=Path, metavar="FILE", help="request")
    parser.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="any variable as JSON (params, tenant, clusters, cluster...); repeatable",
    )
    parser.add_argument(
        "--batch", type=Path, metavar="FILE", help='one JSON object a line: {"expr", "vars"}'
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        default="-",
        help="export: where to write the policies and bindings (default: standard output)",
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default=DEFAULT_BACKEND,
        help=f"CEL engine (default {DEFAULT_BACKEND})",
    )


def run(args: argparse.Namespace, out: Output) -> int:
    if args.action == "export":
        return _export(args, out)
    if (args.expression is None) == (args.batch is None):
        raise UsageError("cel eval takes EXPR or --batch FILE (one of them)")
    variables = _variables(args)
    backend = make_backend(args.backend)
    if args.batch is not None:
        outcomes = [
            evaluate(backend, expression, {**variables, **line_variables})
            for expression, line_variables in _batch(args.batch)
        ]
    else:
        outcomes = [evaluate(backend, args.expression, variables)]
    if out.format == "json":
        out.json([o.as_json() for o in outcomes])
    else:
        for outcome in outcomes:
            out.line(_text(outcome))
    return 0 if all(o.error is None for o in outcomes) else 1


def _text(outcome: Outcome) -> str:
    if outcome.error is not None:
        return f"error: {outcome.error}"
    value = json.dumps(outcome.value, ensure_ascii=False)
    return f"{value}  ({outcome.type}, {outcome.microseconds:.1f} us)"


def _variables(args: argparse.Namespace) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, path in (("object", args.object), ("oldObject", args.old_object)):
        if path is not None:
            found[name] = read_document(str(path))
    if args.request is not None:
        found["request"] = read_document(str(args.request))
    for item in args.var:
        name, equals, text = item.partition("=")
        if not equals or not name:
            raise UsageError(f"--var {item!r}: give NAME=JSON, e.g. params='{{\"max\": 3}}'")
        try:
            found[name] = json.loads(text)
        except ValueError as exc:
            raise UsageError(f"--var {name}: not JSON: {exc}") from None
    return found


def _batch(path: Path) -> list[tuple[str, dict[str, Any]]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise RequestError(f"cannot read {path}: {exc}") from None
    items = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise RequestError(f"{path}:{number}: not JSON: {exc}") from None
        if not isinstance(item, dict) or not isinstance(item.get("expr"), str):
            raise RequestError(f'{path}:{number}: expected {{"expr": "...", "vars": {{...}}}}')
        line_variables = item.get("vars") or {}
        if not isinstance(line_variables, dict):
            raise RequestError(f"{path}:{number}: vars must be an object")
        items.append((item["expr"], line_variables))
    return items


def _export(args: argparse.Namespace, out: Output) -> int:
    """The bundle's CEL rules a Karmada API server runs itself, as ValidatingAdmissionPolicy
    and binding objects (to --out); where every rule runs, and why, to the report."""
    exported = export(load_policy_bundle(args))
    text = b"---\n".join(
        dump(obj, "fedgate cel export: run by the Karmada API server itself" if i == 0 else "")
        for i, obj in enumerate(exported.objects)
    )
    if args.out == "-":
        sys.stdout.buffer.write(text)
        sys.stdout.flush()
    else:
        target = Path(args.out)
        if target.is_dir():
            raise UsageError(
                f"--out {target} is a directory; give a file, or - for standard output"
            )
        temporary = target.with_name(f".{target.name}.tmp")
        try:
            temporary.write_bytes(text)
            os.replace(temporary, target)
        except OSError as exc:  # the user's path, not the temporary one; nothing left behind
            temporary.unlink(missing_ok=True)
            raise OSError(exc.errno, exc.strerror, str(target)) from exc
    if out.format == "json":
        out.json([p.as_json() for p in exported.placements])
    else:
        for placement in exported.placements:
            out.error(f"{placement.where:8} {placement.rule}: {placement.reason}")
    return 0

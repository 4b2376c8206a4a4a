"""``fedgate audit``: live objects judged against the current bundle (``webhook/scan.py``)."""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from compiler.commands.common import add_backend_argument, load_policy_bundle
from compiler.output import Output, plural
from webhook.base.errors import FindingsError, UsageError
from webhook.base.yamlsource import YamlSyntaxError, parse_documents, read_text
from webhook.bundle.expiry import EXPIRY_WARNING_DAYS, exception_dates
from webhook.bundle.live import WATCHED, lean
from webhook.bundle.model import Bundle
from webhook.policyreport import policy_reports
from webhook.scan import Scan, scan
from webhook.shell.kubeapi import ApiError, ApiServer, from_kubeconfig

NAME = "audit"
HELP = "what the current bundle would deny of objects that already exist"
DESCRIPTION = """\
Judge objects that already exist against the current bundle, each as its next write by Argo CD
would be (an UPDATE from the git writer rewriting the object as it stands): the question of a
rule change, "what would now be denied?". Reads Kubernetes objects (YAML or JSON, several
documents, kubectl's List output) from files or standard input, or lists them from the Karmada
API server (--kubeconfig: every kind the webhook's live index watches); writes text, JSON, or
wgpolicyk8s.io/v1alpha2 PolicyReports (--output policyreport: one per namespace and a
ClusterPolicyReport, the format Kyverno writes and Policy Reporter shows; kubectl apply them).

Exit 0 when no object would be denied, 1 when some would (or an input cannot be read).
Findings of rules under action warn or audit are listed and do not change the exit.

examples:
  fedgate audit --kubeconfig karmada.config --policies policies
  kubectl get deploy,propagationpolicies,overridepolicies -A -o yaml | fedgate audit -
  fedgate audit live/*.yaml --policies policies --output json
  kubectl get deploy -A -o json | fedgate audit - --output policyreport | kubectl apply -f -
"""
OUTPUTS = ("text", "json", "policyreport")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "objects",
        nargs="*",
        metavar="FILE",
        help="files of Kubernetes objects (YAML or JSON, Lists opened), or - for standard input",
    )
    parser.add_argument(
        "--kubeconfig",
        type=Path,
        metavar="FILE",
        help="list the live objects from the Karmada API server of this kubeconfig instead",
    )
    parser.add_argument("--context", metavar="NAME", help="a context of the kubeconfig")
    parser.add_argument(
        "--writer",
        default="git",
        metavar="NAME",
        help="the writer of the bundle whose rewrite is judged (default: git, Argo CD's)",
    )
    add_backend_argument(parser)


def _documents(sources: list[str]) -> list[tuple[str, Any]]:
    """(where, document) of every document of every source; every unreadable file is named."""
    found: list[tuple[str, Any]] = []
    problems = []
    for source in sources:
        name = "<stdin>" if source == "-" else source
        try:
            text = sys.stdin.read() if source == "-" else read_text(Path(source), source)
            documents = parse_documents(text, name)
        except YamlSyntaxError as exc:
            problems.append(exc.finding)
            continue
        for document in documents:
            data = document.data
            items = data.get("items") if isinstance(data, dict) else None
            if str(data.get("kind", "")).endswith("List") and isinstance(items, list):
                found.extend(
                    (f"{name}:{document.line(('items', i))}", item) for i, item in enumerate(items)
                )
            else:
                found.append((f"{name}:{document.line(())}", data))
    if problems:
        raise FindingsError(problems)
    return found


def _costs(result: Scan, bundle: Bundle, out: Output) -> None:
    """Each exception in force with its days left, and what it lets through right now."""
    for dated in exception_dates(bundle, EXPIRY_WARNING_DAYS):
        e = dated.exception
        let = [lift for lift in result.lifted if lift.use.exception == e.name]
        left = "expired" if dated.status == "expired" else f"{dated.days_left} days left"
        out.line(
            f"EXCPT {e.name} ({', '.join(sorted(e.namespaces))}; {left}; owner {e.owner}): "
            f"lets through {plural(len(let), 'objection')}"
        )
        for lift in let:
            out.line(f"      {lift.ref}  {lift.use.rule}: {lift.use.message}")


def _text(result: Scan, out: Output) -> None:
    for finding in result.findings:
        label = {"fail": "DENY" if finding.violation.denies else "AUDIT"}.get(
            finding.result, finding.result.upper()
        )
        v = finding.violation
        out.line(f"{label:<5} {finding.ref}  {v.rule}: {v.message}{v.staged_note}")
    for where, why in result.unreadable:
        out.line(f"SKIP  {where}: {why}")
    out.line(
        f"{plural(result.objects, 'object')} judged: {len(result.denied)} would be denied, "
        f"{len(result.clean)} clean, {plural(len(result.findings), 'finding')}"
        + (f", {len(result.unreadable)} unreadable" if result.unreadable else "")
    )
    if result.findings:
        out.line("by rule:   " + ", ".join(f"{k} {v}" for k, v in result.by_rule().items()))
        out.line("by tenant: " + ", ".join(f"{k} {v}" for k, v in result.by_tenant().items()))


def _listed(kubeconfig: Path, context: str | None) -> list[tuple[str, Any]]:
    """(where, object) of every object of the kinds the live index watches, as the API server
    holds them (a list's items carry no kind: the collection gives it)."""
    api = ApiServer(from_kubeconfig(kubeconfig, context))
    found: list[tuple[str, Any]] = []
    for watched in WATCHED:
        try:
            # as the live index holds them, what serve's audit judges, page by page
            items, _ = api.list(watched.path, partial(lean, watched=watched))
        except ApiError as exc:
            raise UsageError(f"--kubeconfig {kubeconfig}: {exc}") from None
        for obj in items:
            metadata = obj.get("metadata") or {}
            where = "/".join(p for p in (metadata.get("namespace"), metadata.get("name")) if p)
            found.append((f"{watched.kind} {where}", obj))
    return found


def run(args: argparse.Namespace, out: Output) -> int:
    if args.objects.count("-") > 1:
        raise UsageError("standard input (-) can be read once")
    if bool(args.objects) == (args.kubeconfig is not None):
        raise UsageError("give the objects (FILE..., or - for standard input) or --kubeconfig")
    if args.kubeconfig is not None:
        documents = _listed(args.kubeconfig, args.context)
    else:
        documents = _documents(args.objects)
    bundle = load_policy_bundle(args)
    if bundle.writer(args.writer) is None:
        names = ", ".join(w.name for w in bundle.writers)
        raise UsageError(f"--writer {args.writer}: the bundle has no such writer ({names})")
    result = scan(documents, bundle, writer=args.writer)
    if out.format == "json":
        out.json(result.as_json())
    elif out.format == "policyreport":
        reports = policy_reports(result, seconds=int(time.time()))
        out.line(yaml.safe_dump_all(reports, sort_keys=False, width=100).rstrip())
    else:
        _text(result, out)
        _costs(result, bundle, out)
    return 1 if result.denied or result.unreadable else 0

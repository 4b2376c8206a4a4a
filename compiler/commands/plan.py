"""``fedgate plan``: what will happen in each member cluster, before anything is merged."""

from __future__ import annotations

import argparse
import difflib
import gc
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from compiler.commands.common import (
    add_backend_argument,
    add_tree_arguments,
    compile_specs,
    load_policy_bundle,
    locate,
    shown,
    spec_files,
)
from compiler.core import Compiled
from compiler.gitrepo import Repository, blob_id
from compiler.incremental import default_cache
from compiler.manifests import read_tree
from compiler.output import Output, color_wanted
from compiler.plan.core import AppPlan, Plan, TenantBill, plan
from compiler.plan.tree import TemplateResult, plan_templates, plan_tree, policies_of
from compiler.synced import synced_tree
from compiler.tree import read_manifest
from webhook.errors import Finding, UsageError
from webhook.quantity import format_cpu, format_memory

NAME = "plan"
HELP = "show where replicas land, what each cluster receives, what it costs, what changes"
DESCRIPTION = """\
For each app: the replicas per member cluster as Karmada v1.18 divides them (both outcomes
where a tie leaves it to the template's UID), the Deployment each cluster receives after
Karmada revises its replicas and applies every override policy of the synced tree (fedgate's
and hand-written ones), the rules' verdict on each of those copies, the requested cpu and
memory per cluster and per tenant against its quota, who owns which field (and what Argo CD
ignores), and the diff of the rendered files against git HEAD, coloured in a terminal. Every
hand-written template of the rendered tree is planned the same way (see --tree).

APPS narrows what is shown and diffed to those spec files; the tenants' bills are always
whole. --tree DIR plans any manifest tree instead: every resource template of any kind with
every PropagationPolicy, ClusterPropagationPolicy, OverridePolicy and ClusterOverridePolicy
found under DIR.

Exit 1 when a rule denies a member's copy, Karmada cannot build one, or a manifest is invalid
(the report is printed either way).

examples:
  fedgate plan                         every app under apps/, and the hand-written templates
  fedgate plan apps/team-a --output json
  fedgate plan --tree clusters/prod --policies policies --output json
"""

RESET, RED, GREEN, CYAN, BOLD = "\033[0m", "\033[31m", "\033[32m", "\033[36m", "\033[1m"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_tree_arguments(parser, "the rendered tree committed in git, for the diff")
    parser.add_argument(
        "--tree",
        type=Path,
        metavar="DIR",
        help="plan every resource template under DIR (any manifests) instead of the app specs",
    )
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the diff (default: when stdout is a terminal)",
    )
    add_backend_argument(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    if args.tree is not None:
        return _run_tree(args, out)
    given = [*args.apps, *args.apps_option]
    where = locate(given, args.out)
    selected = spec_files(given) if given else None
    whole = [shown(where.root / "apps")] if (where.root / "apps").is_dir() else []
    every = spec_files(whole, selected or [])  # the bills are always whole
    compiled, bundle = compile_specs(
        out, every, args, cache=default_cache(where.root), rendered=True
    )
    objects = {path: obj for r in compiled.rendered for path, obj in r.files().items()}
    synced = synced_tree(where.out, compiled.files, objects)
    policies = policies_of(m.object for m in synced.manifests)
    result = plan(compiled.rendered, bundle, policies)
    chosen = _selected_apps(compiled, selected)
    apps = tuple(a for a in result.apps if (a.namespace, a.name) in chosen)
    templates = (
        plan_templates(synced.hand_written.manifests, policies, bundle) if selected is None else ()
    )
    paths = {p for a in compiled.apps if (a.namespace, a.name) in chosen for p in a.paths}
    files = (
        compiled.files
        if selected is None
        else {p: d for p, d in compiled.files.items() if p in paths}
    )
    diffs = _diffs(files, where.out, removed=selected is None)
    report = Plan(apps, result.tenants)
    findings = synced.hand_written.findings
    denied = (
        any(v.denies for a in apps for vs in a.violations.values() for v in vs)
        or any(t.denied for t in templates)
        or bool(findings)
    )
    if out.format == "json":
        out.json(as_json(report, diffs, templates, findings))
        return 1 if denied else 0
    color = color_wanted(out.stdout, args.color)
    for line in render_text(report, diffs, color=color, templates=templates, findings=findings):
        out.line(line)
    return 1 if denied else 0


def _selected_apps(compiled: Compiled, selected: list[Path] | None) -> set[tuple[str, str]]:
    """(namespace, name) of the apps of the spec files given (all apps when none were)."""
    if selected is None:
        return {(a.namespace, a.name) for a in compiled.apps}
    wanted = {str(f.resolve()) for f in selected}
    return {
        (a.namespace, a.name)
        for a in compiled.apps
        if str(Path(a.file).resolve()) in wanted or a.file in wanted
    }


def _run_tree(args: argparse.Namespace, out: Output) -> int:
    """``plan --tree DIR``: any manifests, as Karmada would propagate them."""
    bundle = load_policy_bundle(args)
    if not args.tree.exists():
        raise UsageError(f"--tree {args.tree}: no such file or directory")
    manifests = read_tree(args.tree)
    # The manifests live until the end: out of the collector's way, full collections stop
    # walking them (at 10,000 templates they made each template cost a third more)
    gc.freeze()
    try:
        result = plan_tree(manifests, bundle)
        if out.format == "json":
            out.json(
                {
                    "templates": [template_json(t) for t in result.templates],
                    "errors": [_finding_json(f) for f in result.findings],
                }
            )
        else:
            for line in _templates_text(result.templates, result.findings):
                out.line(line)
    finally:
        gc.unfreeze()
    return 1 if result.denied else 0


def _diffs(files: Mapping[str, bytes], tree: Path, *, removed: bool = True) -> dict[str, str]:
    """Unified diff per rendered file that differs from its version at git HEAD (and, with
    ``removed``, per committed fedgate file the compile no longer writes)."""
    repository = Repository.find(Path.cwd())
    committed = repository.committed(tree) if repository else {}
    changed = {p: d for p, d in files.items() if committed.get(p) != blob_id(d)}
    old = repository.read(committed[p] for p in changed if p in committed) if repository else {}
    diffs = {}
    for path, data in sorted(changed.items()):
        before = old.get(committed.get(path, ""), b"").decode().splitlines(keepends=True)
        diffs[path] = "".join(
            difflib.unified_diff(
                before,
                data.decode().splitlines(keepends=True),
                f"a/{tree / path}" if path in committed else "/dev/null",
                f"b/{tree / path}",
            )
        )
    previous = read_manifest(tree) if tree.is_dir() else {}
    for path in sorted(set(committed) - set(files)) if removed else []:
        if path.endswith(".yaml") and path in previous:
            gone = repository.read([committed[path]]) if repository else {}
            diffs[path] = "".join(
                difflib.unified_diff(
                    gone.get(committed[path], b"").decode().splitlines(keepends=True),
                    [],
                    f"a/{tree / path}",
                    "/dev/null",
                )
            )
    return diffs


def _counts(placement: Mapping[str, int]) -> str:
    return ", ".join(f"{c} {n}" for c, n in sorted(placement.items())) or "no cluster"


def _resources(amounts: Mapping[str, Any]) -> str:
    cpu, memory = amounts.get("cpu"), amounts.get("memory")
    return (
        f"cpu {format_cpu(cpu) if cpu is not None else '-'}, "
        f"memory {format_memory(memory) if memory is not None else '-'}"
    )


def _app_text(app: AppPlan) -> list[str]:
    lines = [
        f"{app.namespace}/{app.name}  (tenant {app.tenant}, {app.mode}, replicas owned "
        f"by {app.owner})"
    ]
    lines.append(f"  placement      {_counts(app.placement)}")
    for alternative in app.alternatives:
        lines.append(f"  or, by UID     {_counts(alternative)}")
    if app.at_max is not None:
        lines.append(f"  at most        {_counts(app.at_max)}")
    lines += [f"  note           {note}" for note in app.notes]
    for cluster, obj in app.clusters.items():
        [container, *_] = obj["spec"]["template"]["spec"]["containers"]
        extra = [
            f"{k}={v}"
            for k, v in sorted((obj["metadata"].get("labels") or {}).items())
            if not k.startswith(("app.kubernetes.io/", "fedgate.dev/"))
        ]
        lines.append(
            f"  {cluster:14} {obj['spec']['replicas']} x {container['image']}"
            + (f"  args {' '.join(container['args'])}" if container.get("args") else "")
            + (f"  labels {', '.join(extra)}" if extra else "")
        )
        if app.overrides.get(cluster):
            lines.append(f"    overrides    {', '.join(app.overrides[cluster])}")
    for cluster, found in app.violations.items():
        for violation in found:
            lines.append(f"    {violation.violation.action} {violation.describe(cluster)}")
    for cluster, amounts in app.bill.items():
        lines.append(f"  bill {cluster:9} {_resources(amounts)}")
    for path, ledger in app.ownership.items():
        others = {p: o for p, o in ledger.items() if o not in ("git", "karmada")}
        if others:
            owned = ", ".join(f"{p} -> {o}" for p, o in sorted(others.items()))
            lines.append(
                f"  owns           {path.rsplit('/', 1)[1]}: {owned} (Argo CD ignores "
                "these and Karmada's fields)"
            )
    return lines


def _tenant_text(bill: TenantBill) -> str:
    parts = []
    for resource, fmt in (("cpu", format_cpu), ("memory", format_memory)):
        used, left = bill.used.get(resource), bill.left(resource)
        quota = bill.quota.get(resource)
        parts.append(
            f"{resource} {fmt(used) if used is not None else '0'}"
            + (
                f" of {fmt(quota)}, {fmt(left)} left"
                if quota is not None and left is not None
                else " (no quota)"
            )
        )
    return f"tenant {bill.tenant}: " + "; ".join(parts)


def _colour(line: str, color: bool) -> str:
    if not color:
        return line
    if line.startswith(("+++", "---")):
        return f"{BOLD}{line}{RESET}"
    if line.startswith("@@"):
        return f"{CYAN}{line}{RESET}"
    if line.startswith("+"):
        return f"{GREEN}{line}{RESET}"
    if line.startswith("-"):
        return f"{RED}{line}{RESET}"
    return line


def _template_text(result: TemplateResult) -> list[str]:
    api_version, kind, namespace, name = result.manifest.identity
    where = f"{result.manifest.file}:{result.manifest.line}"
    lines = [f"{kind} {'/'.join(p for p in (namespace, name) if p)}  ({api_version}, {where})"]
    plan_ = result.plan
    if plan_.policy is not None:
        policy_kind, policy_namespace, policy_name = plan_.policy
        owner = "/".join(p for p in (policy_namespace, policy_name) if p)
        lines.append(f"  policy         {policy_kind} {owner}")
    counts = ", ".join(
        f"{c} {n}" if n is not None else c for c, n in sorted(plan_.placement.items())
    )
    lines.append(f"  placement      {counts or 'no cluster'}")
    if plan_.alternative is not None:
        other = ", ".join(f"{c} {n}" for c, n in sorted(plan_.alternative.items()))
        lines.append(f"  or, by UID     {other}")
    lines += [f"  note           {note}" for note in plan_.notes]
    for cluster, member in sorted(plan_.copies.items()):
        if member.object is not None and member.overrides:
            lines.append(f"  {cluster:14} overrides {', '.join(member.overrides)}")
    for cluster, found in sorted(result.violations.items()):
        for violation in found:
            lines.append(f"    {violation.violation.action} {violation.describe(cluster)}")
    return lines


def _templates_text(templates: Sequence[TemplateResult], findings: Sequence[Finding]) -> list[str]:
    lines = [f"error: {f.render()}" for f in findings]
    for template in templates:
        lines += [*_template_text(template), ""]
    denied = sum(1 for t in templates if t.denied)
    lines.append(
        f"{len(templates)} templates planned; "
        + (
            f"{denied} with a member copy the rules deny"
            if denied
            else "every member copy admitted"
        )
        + (f"; {len(findings)} manifests invalid" if findings else "")
    )
    return lines


def render_text(
    result: Plan,
    diffs: Mapping[str, str],
    *,
    color: bool,
    templates: Sequence[TemplateResult] = (),
    findings: Sequence[Finding] = (),
) -> list[str]:
    lines: list[str] = [f"error: {f.render()}" for f in findings]
    for app in result.apps:
        lines += [*_app_text(app), ""]
    for template in templates:
        lines += [*_template_text(template), ""]
    lines += [_tenant_text(t) for t in result.tenants]
    lines.append("")
    if diffs:
        lines.append(f"{len(diffs)} rendered files differ from git HEAD:")
        for text in diffs.values():
            lines += [_colour(line, color) for line in text.splitlines()]
    else:
        lines.append("the rendered files are those committed at git HEAD")
    return lines


def template_json(result: TemplateResult) -> dict[str, Any]:
    """One template in the JSON contract of ``plan --tree`` (documented in the README)."""
    api_version, kind, namespace, name = result.manifest.identity
    plan_ = result.plan
    policy = None
    if plan_.policy is not None:
        policy = dict(zip(("kind", "namespace", "name"), plan_.policy, strict=True))
    return {
        "apiVersion": api_version,
        "kind": kind,
        "namespace": namespace,
        "name": name,
        "file": result.manifest.file,
        "line": result.manifest.line,
        "policy": policy,
        "placement": dict(plan_.placement),
        "placementAlternatives": [dict(plan_.alternative)] if plan_.alternative else [],
        "clusters": {c: m.object for c, m in sorted(plan_.copies.items()) if m.object is not None},
        "overrides": {
            c: list(m.overrides) for c, m in sorted(plan_.copies.items()) if m.object is not None
        },
        "violations": {c: [v.as_json() for v in vs] for c, vs in sorted(result.violations.items())},
        "notes": list(plan_.notes),
    }


def _finding_json(finding: Finding) -> dict[str, Any]:
    return {
        "file": finding.file,
        "line": finding.line,
        "path": finding.path,
        "message": finding.message,
    }


def as_json(
    result: Plan,
    diffs: Mapping[str, str],
    templates: Sequence[TemplateResult] = (),
    findings: Sequence[Finding] = (),
) -> dict[str, Any]:
    """The JSON for tools (documented in the README)."""
    return {
        "apps": [
            {
                "namespace": a.namespace,
                "name": a.name,
                "tenant": a.tenant,
                "mode": a.mode,
                "owner": a.owner,
                "placement": dict(a.placement),
                "placementAlternatives": [dict(x) for x in a.alternatives],
                "placementAtMax": dict(a.at_max) if a.at_max is not None else None,
                "notes": list(a.notes),
                "bill": {
                    c: {r: _amount(r, v) for r, v in amounts.items()}
                    for c, amounts in a.bill.items()
                },
                "clusters": dict(a.clusters),
                "violations": {c: [v.as_json() for v in vs] for c, vs in a.violations.items()},
                "overrides": {c: list(o) for c, o in a.overrides.items()},
                "ownership": {p: dict(ledger) for p, ledger in a.ownership.items()},
            }
            for a in result.apps
        ],
        "tenants": [
            {
                "tenant": t.tenant,
                "used": {r: _amount(r, v) for r, v in t.used.items()},
                "quota": {r: _amount(r, v) if v is not None else None for r, v in t.quota.items()},
                "left": {
                    r: _amount(r, t.left(r)) if t.left(r) is not None else None for r in t.quota
                },
            }
            for t in result.tenants
        ],
        "diff": dict(diffs),
        "templates": [template_json(t) for t in templates],
        "errors": [_finding_json(f) for f in findings],
    }


def _amount(resource: str, value: Any) -> str:
    return str(format_cpu(value) if resource == "cpu" else format_memory(value))


if __name__ == "__main__":  # pragma: no cover
    sys.exit("run `fedgate plan`")

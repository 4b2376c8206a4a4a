"""``fedgate plan``: what will happen in each member cluster, before anything is merged."""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from compiler.commands.common import (
    add_backend_argument,
    add_tree_arguments,
    compile_specs,
    locate,
)
from compiler.gitrepo import Repository, blob_id
from compiler.incremental import default_cache
from compiler.output import Output, color_wanted
from compiler.plan.core import AppPlan, Plan, TenantBill, plan
from compiler.spec.load import find_spec_files
from webhook.quantity import format_cpu, format_memory

NAME = "plan"
HELP = "show where replicas land, what each cluster receives, what it costs, what changes"
DESCRIPTION = """\
For each app: the replicas per member cluster as Karmada v1.18 divides them (both outcomes
where a tie leaves it to the template's UID), the Deployment each cluster receives after
Karmada revises its replicas and applies the OverridePolicies, the rules' verdict on each of
those copies, the requested cpu and memory per cluster and per tenant against its quota, who
owns which field (and what Argo CD ignores), and the diff of the rendered files against git
HEAD, coloured in a terminal.

examples:
  fedgate plan                         every app under apps/
  fedgate plan apps/team-a --output json
"""

RESET, RED, GREEN, CYAN, BOLD = "\033[0m", "\033[31m", "\033[32m", "\033[36m", "\033[1m"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_tree_arguments(parser, "the rendered tree committed in git, for the diff")
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the diff (default: when stdout is a terminal)",
    )
    add_backend_argument(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    where = locate([*args.apps, *args.apps_option], args.out)
    files = find_spec_files(where.apps)
    compiled, bundle = compile_specs(out, files, args, cache=default_cache(where.root))
    result = plan(compiled.rendered, bundle)
    diffs = _diffs(compiled.files, where.out)
    if out.format == "json":
        out.json(as_json(result, diffs))
        return 0
    color = color_wanted(out.stdout, args.color)
    for line in render_text(result, diffs, color=color):
        out.line(line)
    return 0


def _diffs(files: Mapping[str, bytes], tree: Path) -> dict[str, str]:
    """Unified diff per rendered file that differs from its version at git HEAD."""
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
    for path in sorted(set(committed) - set(files)):
        if path.endswith(".yaml"):
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
        for violation in app.violations.get(cluster, ()):
            lines.append(f"    {violation.action} {violation.rule}: {violation.message}")
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


def render_text(result: Plan, diffs: Mapping[str, str], *, color: bool) -> list[str]:
    lines: list[str] = []
    for app in result.apps:
        lines += [*_app_text(app), ""]
    lines += [_tenant_text(t) for t in result.tenants]
    lines.append("")
    if diffs:
        lines.append(f"{len(diffs)} rendered files differ from git HEAD:")
        for text in diffs.values():
            lines += [_colour(line, color) for line in text.splitlines()]
    else:
        lines.append("the rendered files are those committed at git HEAD")
    return lines


def as_json(result: Plan, diffs: Mapping[str, str]) -> dict[str, Any]:
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
    }


def _amount(resource: str, value: Any) -> str:
    return str(format_cpu(value) if resource == "cpu" else format_memory(value))


if __name__ == "__main__":  # pragma: no cover
    sys.exit("run `fedgate plan`")

"""``fedgate plan``: what will happen in each member cluster, before anything is merged."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from compiler.argocd.manifests import Manifest, read_tree
from compiler.check.gitrepo import Repository
from compiler.check.synced import SyncedTree, synced_tree
from compiler.check.tree import applications
from compiler.check.writes import as_synced
from compiler.commands.baseline import (
    HeadSpecs,
    TreeChanges,
    app_changes,
    before_side,
    hand_written_policies,
    template_changes,
    tree_changes,
)
from compiler.commands.common import (
    add_backend_argument,
    add_base_argument,
    add_tree_arguments,
    compile_specs,
    load_policy_bundle,
    locate,
    shown,
    spec_files,
)
from compiler.compile.core import Compiled
from compiler.compile.incremental import default_cache
from compiler.output import Output, color_wanted
from compiler.plan.changes import (
    FileAction,
    PolicyChange,
    TemplateChange,
    summarize,
    tenant_before,
)
from compiler.plan.core import AppPlan, Plan, plan
from compiler.plan.failover import fail, tree_taint_policies
from compiler.plan.failovertext import as_json as failover_json
from compiler.plan.failovertext import report as failover_report
from compiler.plan.failoverworse import Worse, worse_json, worse_lines
from compiler.plan.failoverworse import worse as failover_worse
from compiler.plan.jsonview import amount, as_json, changes_json, finding_json, template_json
from compiler.plan.text import finish, report, tree_report
from compiler.plan.tree import TemplateResult, plan_templates, policies_of
from compiler.plan.tree import plan_tree as plan_manifest_tree
from compiler.render.argocd import FOLDER as ARGOCD_FOLDER
from webhook.base.errors import Finding, UsageError
from webhook.bundle.expiry import EXPIRY_WARNING_DAYS, exception_dates
from webhook.bundle.model import Bundle
from webhook.engine.workloads import pod_spec

NAME = "plan"
HELP = "what changes in each member cluster against git HEAD: replicas, copies, bills, denials"
DESCRIPTION = """\
What each member cluster will receive, read like `terraform plan`: a block per app and
hand-written template that differs from git HEAD's rendered tree (+ added, ~ changed, -
removed), with before -> after where a value changes: the replicas per member cluster as
Karmada v1.18 divides them (both outcomes where a tie leaves it to the template's UID), the
Deployment each cluster receives after every override policy of the synced tree, the rules'
verdict on each copy (deny / warn), the requested cpu and memory per cluster; then each
affected tenant's bill against its quota (the quota rule's: autoscalers at their minimum) with
its ceiling under it (autoscalers at their maximum), and one summary line:

  Plan: 1 app to add, 2 to change, 0 to remove; clusters affected: cluster-a; 0 denies.

Apps that do not change are shown only when a rule denies one of their copies (--all shows
every app, template and tenant). --diff adds the diff of each changed file. Lines fit 100
columns (a diff line is cut; --output json and git diff have it whole).

APPS narrows what is shown and diffed to those spec files; the tenants' bills are always
whole. --tree DIR plans any manifest tree instead: every resource template of any kind with
every PropagationPolicy, ClusterPropagationPolicy, OverridePolicy and ClusterOverridePolicy
found under DIR.

--output markdown writes the plan as a pull-request comment (denials first, per app what each
cluster runs, the tenants' bills against quota, the detail collapsed; under GitHub's 65,536
characters, with a note where it was cut); --output html one self-contained page (a placement
chart per app, quota bars per tenant, what each member receives as a diff; no script, no
network). Both are drawn from the JSON document, so their numbers are the JSON plan's.

Exit 1 when a rule denies a member's copy, Karmada cannot build one, or a manifest is invalid
(the report is printed either way); otherwise 0. With --detailed-exitcode, as terraform's: 0
no changes, 1 an error or a denial, 2 changes present and nothing denied.

examples:
  fedgate plan                         what changes against git HEAD, and the summary line
  fedgate plan --all --diff            every app, template and tenant, and the diffs
  fedgate plan --detailed-exitcode     in CI: exit 2 when the pull request changes anything
  fedgate plan apps/team-a --output json
  fedgate plan --output markdown > comment.md   the pull-request comment
  fedgate plan --output html > plan.html        one page: charts, bills, diffs
  fedgate plan --tree clusters/prod --policies policies --output json
  fedgate plan --fail cluster-a        what Karmada does if cluster-a fails (docs/failover.md)
  fedgate plan --fail cluster-a,cluster-b --tree clusters/prod --output json

--fail CLUSTER[,CLUSTER...] answers "what if these clusters fail?" as Karmada v1.18 decides it,
with the control plane's settings of policies/karmada.yaml (v1.18's defaults when absent: the
Failover feature gate and --enable-no-execute-taint-eviction are OFF, so nothing is evicted
and the failed clusters' replicas are simply lost until they return). For every template on
a failed cluster: evicted or not and when (the NoExecute taints of the ClusterTaintPolicies
against the policy's clusterTolerations), where its replicas go, which copies run twice and
for how long (purgeMode Gracefully or Directly); each cluster left's requests against its
allocatable (policies/clusters.yaml); the eviction storm (the taint manager's queues, their
order and pacing). Exit 1 when a stateful app would run in two places or a cluster left
would be over its allocatable. --output markdown / html draw it as a comment / a page.

With --base REF, the plan also lists each single-cluster failure the change makes worse than
at the base (an app left nowhere, no longer moved off, a new split brain or a cluster over its
allocatable); it does not change the exit code (docs/failover.md).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_tree_arguments(parser, "the rendered tree committed in git, for the diff")
    parser.add_argument(
        "--tree",
        type=Path,
        metavar="DIR",
        help="plan every resource template under DIR (any manifests) instead of the app specs",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="show every app, template and tenant, not only what changes against git HEAD",
    )
    parser.add_argument(
        "--diff",
        action="store_true",
        help="show the diff of each changed rendered file against git HEAD",
    )
    add_base_argument(parser)
    parser.add_argument(
        "--detailed-exitcode",
        action="store_true",
        help="exit 0 no changes, 1 error or denial, 2 changes present (as terraform plan)",
    )
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the report (default: on a terminal, unless NO_COLOR or TERM=dumb)",
    )
    parser.add_argument(
        "--fail",
        metavar="CLUSTER[,CLUSTER...]",
        help="what Karmada does when these member clusters fail: evictions, where replicas "
        "go, copies running twice, capacity left, how long the evictions take",
    )
    add_backend_argument(parser)


OUTPUTS = ("text", "json", "markdown", "html")
"""markdown: a pull-request comment; html: one self-contained page (both drawn from the JSON)."""
EXIT_CHANGES = 2
"""--detailed-exitcode: changes present, nothing denied (terraform's meaning)."""
AGAINST_HEAD = ("all", "diff", "detailed_exitcode", "base")


def _pages_need_head(args: argparse.Namespace, out: Output) -> None:
    """markdown and html show a change against git HEAD (or the failover plan): not what
    --tree alone plans."""
    if args.tree is not None and args.fail is None and out.format in ("markdown", "html"):
        raise UsageError(
            f"--output {out.format} shows a change against git HEAD; with --tree, use "
            "--output text or json"
        )


def run(args: argparse.Namespace, out: Output) -> int:
    _pages_need_head(args, out)
    if args.fail is not None:
        return _run_fail(args, out)
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
    prefix = bundle.argocd.path if bundle.argocd is not None else str(where.out)
    argocd = applications(compiled)

    def applied(manifests: Iterable[Manifest]) -> list[Manifest]:
        """As Argo CD applies them to Karmada: not the Argo CD folder (the root Application
        syncs it to Argo CD's own cluster), namespaced as their Application puts them."""
        karmada = (m for m in manifests if not m.file.startswith(f"{ARGOCD_FOLDER}/"))
        return as_synced(karmada, argocd, prefix)

    synced = synced_tree(where.out, compiled.files, objects, applied)
    policies = policies_of(m.object for m in synced.manifests)
    # fedgate's manifests take the clusters' room before the hand-written ones, as plan --fail
    # counts it: a template divided by the room is divided as the scheduler does over both.
    templates = (
        plan_templates(synced.hand_written.manifests, policies, bundle, synced.fedgate)
        if selected is None
        else ()
    )
    # The bills are whole: APPS or not, every hand-written workload is on its tenant's bill.
    workloads = (
        templates
        if selected is None
        else plan_templates(
            [m for m in synced.hand_written.manifests if pod_spec(m.object) is not None],
            policies,
            bundle,
            synced.fedgate,
        )
    )
    result = plan(compiled.rendered, bundle, policies, [t.plan for t in workloads])
    chosen = _selected_apps(compiled, selected)
    apps = tuple(a for a in result.apps if (a.namespace, a.name) in chosen)
    paths = {p for a in compiled.apps if (a.namespace, a.name) in chosen for p in a.paths}
    whole_tree = selected is None  # APPS: only those apps' files; nothing shows as removed
    repository = Repository.find(Path.cwd(), args.base)
    changes = tree_changes(
        repository,
        where.out,
        {p: d for p, d in compiled.files.items() if whole_tree or p in paths},
        _hand_written(synced) if whole_tree else (),
        removals=whole_tree,
        applied=applied,
    )
    # The before side needs every policy that changed, also when APPS narrow what is shown.
    every_change = (
        changes
        if whole_tree
        else tree_changes(
            repository, where.out, compiled.files, _hand_written(synced), applied=applied
        )
    )
    before = before_side(every_change, synced, policies, bundle)
    head = HeadSpecs(repository, bundle, whole) if repository is not None else None
    app_list = app_changes(apps, compiled, changes, before, head, removals=whole_tree)
    template_list = template_changes(templates, changes, before)
    policy_list = hand_written_policies(changes, synced) if whole_tree else []
    others = _other_files(changes, template_list, policy_list)
    findings = synced.hand_written.findings
    summary = summarize(
        app_list,
        template_list,
        policies=len(policy_list),
        files=len(others),
        invalid=len(findings),
    )
    diffs = {path: changes.diff(path, where.out) for path in changes.files}
    code = _exit_code(
        apps, templates, findings, detailed=args.detailed_exitcode and summary.changes
    )
    against = repository.label if repository is not None else "git HEAD"
    worse = _failover_worse(args, every_change, synced, bundle)
    befores = [
        (
            bill,
            tenant_before(bill, app_list, template_list, bundle.tenants[bill.tenant].namespaces),
            tenant_before(
                bill,
                app_list,
                template_list,
                bundle.tenants[bill.tenant].namespaces,
                ceiling=True,
            ),
        )
        for bill in result.tenants
    ]  # each tenant's bill, and what it used and its ceiling at HEAD
    dates = exception_dates(bundle, EXPIRY_WARNING_DAYS)
    if out.format in OUTPUTS[1:]:
        document = {
            **as_json(Plan(apps, result.tenants), diffs, templates, findings),
            "changes": changes_json(app_list, template_list, policy_list, changes.files),
            "summary": summary.as_json(),
            **({"failover": worse_json(worse, against)} if worse is not None else {}),
            **({"exceptions": [d.as_json() for d in dates]} if dates else {}),
        }
        for tenant, (_, used, ceiling) in zip(document["tenants"], befores, strict=True):
            for key, value in (("usedBefore", used), ("ceilingBefore", ceiling)):
                tenant[key] = (
                    {r: amount(r, v) for r, v in value.items()} if value is not None else None
                )
        if out.format == "json":
            out.json(document)
        else:
            _draw(out, document, everything=args.all)
        return code
    lines = report(
        app_list,
        template_list,
        befores,
        summary,
        policies=policy_list,
        others=others,
        findings=findings,
        diffs=diffs if args.diff else None,
        everything=args.all,
        tree=str(where.out),
        against=against,
        failover=worse_lines(worse or (), against),
        exceptions=dates,
    )
    for line in finish(lines, color_wanted(out.stdout, args.color)):
        out.line(line)
    return code


def _draw(out: Output, document: Mapping[str, Any], *, everything: bool) -> None:
    """The markdown comment or the HTML page, drawn from the JSON document."""
    if out.format == "markdown":
        from compiler.plan.markdown import render  # noqa: PLC0415 - only this output needs it
    else:
        from compiler.plan.html import render  # noqa: PLC0415
    out.stdout.write(render(document, everything=everything))


def _exit_code(
    apps: Sequence[AppPlan],
    templates: Sequence[TemplateResult],
    findings: Sequence[Finding],
    *,
    detailed: bool,
) -> int:
    """1 when a rule denies a copy or a manifest is invalid; else 2 with --detailed-exitcode
    and changes present (``detailed``); else 0."""
    denied = (
        any(v.denies for a in apps for vs in a.violations.values() for v in vs)
        or any(t.denied for t in templates)
        or bool(findings)
    )
    return 1 if denied else EXIT_CHANGES if detailed else 0


def _failover_worse(
    args: argparse.Namespace, changes: TreeChanges, synced: SyncedTree, bundle: Bundle
) -> list[Worse] | None:
    """With --base REF and a change: each single-cluster failure it makes worse (None: not
    compared)."""
    if args.base is None or not changes.files:
        return None
    return failover_worse(_base_manifests(changes, synced), synced.manifests, bundle)


def _base_manifests(changes: TreeChanges, synced: SyncedTree) -> list[Manifest]:
    """The manifests Argo CD syncs at the base: the working side's, each changed file as the
    base has it."""
    kept = [m for m in synced.manifests if m.file not in changes.files]
    return kept + changes.manifests(changes.head, changes.files)


def _draw_failover(out: Output, document: Mapping[str, Any]) -> None:
    """``plan --fail`` as the markdown comment or the HTML page, drawn from its JSON."""
    if out.format == "markdown":
        from compiler.plan.markdown import render_failover  # noqa: PLC0415 - only here
    else:
        from compiler.plan.html import render_failover  # noqa: PLC0415
    out.stdout.write(render_failover(document))


def _hand_written(synced: SyncedTree) -> list[str]:
    """The hand-written files of the synced tree, read or not (the tree is listed once)."""
    return sorted(synced.files)


def _other_files(
    changes: TreeChanges, templates: Sequence[TemplateChange], policies: Sequence[PolicyChange]
) -> dict[str, FileAction]:
    """The changed files no app, template or policy line shows (the Argo CD pieces, ...)."""
    shown_files = {p for files in changes.app_files().values() for p in files}
    shown_files |= {
        side.manifest.file
        for t in templates
        if t.action != "none"
        for side in (t.after, t.before)
        if side is not None
    }
    shown_files |= {p.file for p in policies}
    return {p: a for p, a in changes.files.items() if p not in shown_files}


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


def failed_clusters(text: str, known: Iterable[str]) -> list[str]:
    """``--fail a,b``: the names, checked against the bundle's clusters."""
    names = [n.strip() for n in text.split(",")]
    clusters = sorted(known)
    if not text.strip() or not all(names):
        raise UsageError(
            f"--fail {text!r}: give cluster names separated by commas; the bundle has "
            f"{', '.join(clusters) or 'no clusters'}"
        )
    unknown = [n for n in names if n not in clusters]
    if unknown:
        raise UsageError(
            f"--fail: unknown cluster{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
            f"the bundle has {', '.join(clusters) or 'no clusters'}"
        )
    return list(dict.fromkeys(names))


def _fail_manifests(args: argparse.Namespace, out: Output) -> tuple[list[Manifest], Bundle]:
    """Every manifest Argo CD syncs to Karmada (the app specs compiled, and the hand-written
    ones), or those of --tree DIR."""
    if args.tree is not None:
        bundle = load_policy_bundle(args)
        if not args.tree.exists():
            raise UsageError(f"--tree {args.tree}: no such file or directory")
        tree = read_tree(args.tree)
        return list(tree.manifests), bundle
    where = locate([], args.out)
    whole = [shown(where.root / "apps")] if (where.root / "apps").is_dir() else []
    compiled, bundle = compile_specs(
        out, spec_files(whole), args, cache=default_cache(where.root), rendered=True
    )
    objects = {path: obj for r in compiled.rendered for path, obj in r.files().items()}
    prefix = bundle.argocd.path if bundle.argocd is not None else str(where.out)
    argocd = applications(compiled)

    def applied(manifests: Iterable[Manifest]) -> list[Manifest]:
        karmada = (m for m in manifests if not m.file.startswith(f"{ARGOCD_FOLDER}/"))
        return as_synced(karmada, argocd, prefix)

    synced = synced_tree(where.out, compiled.files, objects, applied)
    return list(synced.manifests), bundle


def _run_fail(args: argparse.Namespace, out: Output) -> int:
    """``plan --fail``: what Karmada does when the clusters fail."""
    given = [*args.apps, *args.apps_option]
    against = [f"--{o.replace('_', '-')}" for o in AGAINST_HEAD if getattr(args, o)]
    if given or against:
        raise UsageError(
            f"{', '.join([*against, *(['APPS'] if given else [])])}: not with --fail, which "
            "plans the whole federation as it is (capacity and the eviction queue depend on "
            "every app)"
        )
    manifests, bundle = _fail_manifests(args, out)
    failed = failed_clusters(args.fail, bundle.clusters)
    policies = policies_of(m.object for m in manifests)
    result = fail(manifests, policies, bundle, failed, tree_taint_policies(manifests))
    if out.format == "json":
        out.json(failover_json(result))
    elif out.format in ("markdown", "html"):
        _draw_failover(out, failover_json(result))
    else:
        for line in finish(failover_report(result), color_wanted(out.stdout, args.color)):
            out.line(line)
    return 1 if result.denied else 0


def _run_tree(args: argparse.Namespace, out: Output) -> int:
    """``plan --tree DIR``: any manifests, as Karmada would propagate them."""
    against = [f"--{o.replace('_', '-')}" for o in AGAINST_HEAD if getattr(args, o)]
    if against:
        raise UsageError(
            f"{', '.join(against)}: not with --tree, which plans DIR as it is (there is no git "
            "HEAD side to compare with, and every template is shown)"
        )
    bundle = load_policy_bundle(args)
    if not args.tree.exists():
        raise UsageError(f"--tree {args.tree}: no such file or directory")
    manifests = read_tree(args.tree)
    # The manifests live until the end: out of the collector's way, full collections stop
    # walking them (at 10,000 templates they made each template cost a third more)
    gc.freeze()
    try:
        result = plan_manifest_tree(manifests, bundle)
        if out.format == "json":
            out.json(
                {
                    "templates": [template_json(t) for t in result.templates],
                    "errors": [finding_json(f) for f in result.findings],
                    "warnings": [finding_json(f) for f in result.warnings],
                }
            )
        else:
            color = color_wanted(out.stdout, args.color)
            report = tree_report(result.templates, result.findings, result.warnings)
            for line in finish(report, color):
                out.line(line)
    finally:
        gc.unfreeze()
    return 1 if result.denied else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit("run `fedgate plan`")

"""``fedgate compile``: render app specs into the directory Argo CD syncs."""

from __future__ import annotations

import argparse
from pathlib import Path

from compiler.argocd.replica_moves import replica_moves
from compiler.commands.common import (
    add_backend_argument,
    add_tree_arguments,
    bundle_named,
    compile_specs,
    locate,
)
from compiler.compile.core import Compiled
from compiler.compile.incremental import compile_files, default_cache
from compiler.compile.wipe import ALLOW_FLAG, wipes
from compiler.compile.write import TreeDiff, diff_tree, read_manifest, write_tree
from compiler.output import Output, plural
from compiler.render.argocd import FOLDER as ARGOCD_FOLDER
from compiler.spec.load import find_spec_files
from webhook.bundle.model import Bundle
from webhook.errors import FedgateError, UsageError

NAME = "compile"
HELP = "render app specs into Karmada manifests (or --check that they are up to date)"
DESCRIPTION = """\
Render every app spec (files, or directories searched recursively for .yaml/.yml) into
DIR/<namespace>/<app>/: the Deployment, its PropagationPolicy, OverridePolicy, FederatedHPA or
member HPA, each carrying its ownership ledger; and DIR/argocd/: per tenant an Argo CD
AppProject and Application. Every object goes through the rule engine as the CREATE Argo CD
will send. All errors of all files are reported at once, with file, line and field, before
anything is written. Spec files that did not change come from a cache in .git/fedgate/.

The write is atomic: an interrupted or failed compile leaves the previous tree. Only files
fedgate wrote before (listed in DIR/.fedgate-manifest) are replaced or removed; any other file
in DIR is left alone. A compile that would remove every workload of a tenant, or of the whole
tree (an empty or mistyped APPS), is refused unless --allow-empty says so: Argo CD would prune
them all from the federation. So is printing nothing with --out -.

examples:
  fedgate compile                               apps/ into rendered/
  fedgate compile apps/team-a --out rendered    some apps only (the rest are pruned!)
  fedgate compile --check                       exit 1 listing stale, missing, extra files
  fedgate compile --out -                       the manifests on stdout (an Argo CD plugin)
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_tree_arguments(parser, "the rendered tree Argo CD syncs; - prints the manifests")
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when DIR differs, listing the files",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also print each app's placement, and every file (not the first 20)",
    )
    parser.add_argument(
        ALLOW_FLAG,
        action="store_true",
        help="allow removing every workload of a tenant or of the tree (Argo CD prunes them)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="compile every spec file (unchanged ones otherwise come from .git/fedgate/)",
    )
    add_backend_argument(parser)


def compile_paths(apps: list[Path], policies: Path, *, cache: Path | None = None) -> Compiled:
    """Load the bundle and the specs named by ``apps`` and compile them (the shared entry);
    with ``cache``, spec files that did not change are not compiled again."""
    return compile_with_bundle(apps, policies, cache=cache)[0]


def compile_with_bundle(
    apps: list[Path], policies: Path, *, cache: Path | None = None
) -> tuple[Compiled, Bundle]:
    """``compile_paths``, and the bundle it compiled with."""
    return compile_files(find_spec_files(apps or [Path("apps")]), policies, cache=cache)


class WipeRefused(FedgateError):
    """A compile would take every workload of a tenant or of the tree out of it."""


def run(args: argparse.Namespace, out: Output) -> int:
    where = locate([*args.apps, *args.apps_option], args.out, streaming=str(args.out) == "-")
    args.apps, args.out = where.apps, where.out
    cache = None if args.no_cache else default_cache(where.root)
    compiled, bundle = compile_specs(out, find_spec_files(where.apps), args, cache=cache)
    for warning in compiled.warnings:
        out.error(f"warning: {warning.render()}")
    if str(args.out) == "-":
        if args.check:
            raise UsageError("--check compares a directory: give --out DIR")
        if not _manifests(compiled) and not args.allow_empty:
            sources = " ".join(str(p) for p in args.apps) or "apps"
            raise WipeRefused(
                f"no app spec under {sources} rendered a manifest; printing nothing would make "
                f"an Argo CD sync with prune delete every workload it manages. Check the path, "
                f"or pass {ALLOW_FLAG}"
            )
        _stream(out, compiled)
        return 0
    if args.check:
        diff = diff_tree(args.out, compiled.files)
        _report(out, args, compiled, diff, checking=True)
        return 0 if diff.clean else 1
    previous = read_manifest(args.out)
    refused = wipes(previous, compiled.files, bundle)
    if refused and not args.allow_empty:
        raise WipeRefused(
            "\n".join(f"{args.out}/: {wipe.message()}" for wipe in refused)
            + "\nnothing was written"
        )
    _notify_replica_moves(out, args.out, previous, compiled)
    diff = write_tree(args.out, compiled.files, waiting=lambda: _waiting(out, args.out))
    _report(out, args, compiled, diff, checking=False)
    return 0


def _waiting(out: Output, tree: Path) -> None:
    out.error(f"fedgate: another fedgate compile is writing {tree}/; waiting for it to finish")


def _notify_replica_moves(
    out: Output, tree: Path, previous: dict[str, str], compiled: Compiled
) -> None:
    """Tell what to clear before Argo CD syncs an app whose replicas move from git to an HPA."""
    candidates = [p for p in compiled.files if p.endswith("/deployment.yaml") and p in previous]
    old: dict[str, bytes] = {}
    for path in candidates:
        try:
            old[path] = (tree / path).read_bytes()
        except OSError:
            continue
    for move in replica_moves(old, {p: compiled.files[p] for p in candidates}):
        out.error(f"notice: {move.message(str(tree))}")


def _manifests(compiled: Compiled) -> list[str]:
    return [p for p in compiled.files if not p.startswith(f"{ARGOCD_FOLDER}/")]


def _stream(out: Output, compiled: Compiled) -> None:
    """Every Karmada manifest as one YAML stream on stdout (an Argo CD plugin's output): no
    Argo CD objects, no manifest file, nothing else on stdout."""
    documents = [
        data.decode()
        for path, data in compiled.files.items()
        if not path.startswith(f"{ARGOCD_FOLDER}/")
    ]
    out.stdout.write("---\n".join(documents))


def _report(
    out: Output, args: argparse.Namespace, compiled: Compiled, diff: TreeDiff, *, checking: bool
) -> None:
    apps = [
        {
            "namespace": a.namespace,
            "name": a.name,
            "tenant": a.tenant,
            "clusters": list(a.clusters),
            "files": list(a.paths),
        }
        for a in compiled.apps
    ]
    if out.format == "json":
        out.json(
            {
                "ok": diff.clean or not checking,
                "out": str(args.out),
                "policies": str(args.policies),
                "apps": apps,
                "added": list(diff.added),
                "changed": list(diff.changed),
                "removed": list(diff.removed),
                "unchanged": diff.unchanged,
            }
        )
        return
    if args.verbose:
        for app in apps:
            out.line(f"  {app['namespace']}/{app['name']}: {', '.join(app['clusters'])}")
    if checking:
        _report_check(out, args, diff)
        return
    for label, paths in (
        ("added", diff.added),
        ("changed", diff.changed),
        ("removed", diff.removed),
    ):
        shown = paths if args.verbose else paths[:20]
        for path in shown:
            out.line(f"  {label:8} {args.out / path}")
        if len(paths) > len(shown):
            out.line(f"  ... and {len(paths) - len(shown)} more {label} (-v lists them all)")
    out.line(
        f"compiled {plural(len(compiled.apps), 'app')} into {plural(len(compiled.files), 'file')} "
        f"in {args.out}/: "
        f"{len(diff.added)} added, {len(diff.changed)} changed, {len(diff.removed)} removed, "
        f"{diff.unchanged} unchanged ({bundle_named(args)})"
    )


def _report_check(out: Output, args: argparse.Namespace, diff: TreeDiff) -> None:
    if diff.clean:
        out.line(
            f"{args.out}/ is up to date ({plural(diff.unchanged, 'file')}; {bundle_named(args)})"
        )
        return
    for label, paths in (("missing", diff.added), ("stale", diff.changed), ("extra", diff.removed)):
        for path in paths:
            out.line(f"  {label:8} {args.out / path}")
    if diff.manifest_stale and not (diff.added or diff.changed or diff.removed):
        out.line(f"  stale    {args.out}/.fedgate-manifest")
    sources = " ".join(str(p) for p in args.apps) or "apps"
    out.line(
        f"{args.out}/ is not what the specs render: {len(diff.added)} missing, "
        f"{len(diff.changed)} stale, {len(diff.removed)} extra; "
        f"run `fedgate compile {sources} --out {args.out}`"
    )

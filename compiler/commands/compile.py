"""``fedgate compile``: render app specs into the directory Argo CD syncs."""

from __future__ import annotations

import argparse
from pathlib import Path

from compiler.core import Compiled, compile_apps
from compiler.output import Output
from compiler.spec.load import find_spec_files, load_specs
from compiler.tree import TreeDiff, diff_tree, write_tree
from webhook.bundle.load import load_bundle

NAME = "compile"
HELP = "render app specs into Karmada manifests (or --check that they are up to date)"
DESCRIPTION = """\
Render every app spec (files, or directories searched recursively for .yaml/.yml) into
DIR/<namespace>/<app>/: the Deployment, its PropagationPolicy, OverridePolicy, FederatedHPA or
member HPA, each carrying its ownership ledger. All errors of all files are reported at once,
with file, line and field, before anything is written.

The write is atomic: an interrupted or failed compile leaves the previous tree. Only files
fedgate wrote before (listed in DIR/.fedgate-manifest) are replaced or removed; any other file
in DIR is left alone.

examples:
  fedgate compile                               apps/ into rendered/
  fedgate compile apps/team-a --out rendered    some apps only (the rest are pruned!)
  fedgate compile --check                       exit 1 listing stale, missing, extra files
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "apps",
        nargs="*",
        type=Path,
        metavar="APPS",
        help="app spec files or directories (default: apps)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("rendered"),
        metavar="DIR",
        help="the rendered tree Argo CD syncs (default: rendered)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when DIR differs, listing the files",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="also print each app's placement"
    )


def compile_paths(apps: list[Path], policies: Path) -> Compiled:
    """Load the bundle and the specs named by ``apps`` and compile them (the shared entry)."""
    bundle = load_bundle(policies)
    files = find_spec_files(apps or [Path("apps")])
    return compile_apps(load_specs(files), bundle)


def run(args: argparse.Namespace, out: Output) -> int:
    compiled = compile_paths(args.apps, args.policies)
    for warning in compiled.warnings:
        out.error(f"warning: {warning.render()}")
    if args.check:
        diff = diff_tree(args.out, compiled.files)
        _report(out, args, compiled, diff, checking=True)
        return 0 if diff.clean else 1
    diff = write_tree(args.out, compiled.files)
    _report(out, args, compiled, diff, checking=False)
    return 0


def _report(
    out: Output, args: argparse.Namespace, compiled: Compiled, diff: TreeDiff, *, checking: bool
) -> None:
    apps = [
        {
            "namespace": r.app.namespace,
            "name": r.app.name,
            "tenant": r.app.tenant,
            "clusters": list(r.candidates),
            "files": sorted(r.files()),
        }
        for r in compiled.apps
    ]
    if out.format == "json":
        out.json(
            {
                "ok": diff.clean or not checking,
                "out": str(args.out),
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
        for path in paths[:20]:
            out.line(f"  {label:8} {args.out / path}")
        if len(paths) > 20:
            out.line(f"  ... and {len(paths) - 20} more {label}")
    out.line(
        f"compiled {len(compiled.apps)} apps into {len(compiled.files)} files in {args.out}/: "
        f"{len(diff.added)} added, {len(diff.changed)} changed, {len(diff.removed)} removed, "
        f"{diff.unchanged} unchanged"
    )


def _report_check(out: Output, args: argparse.Namespace, diff: TreeDiff) -> None:
    if diff.clean:
        out.line(f"{args.out}/ is up to date ({diff.unchanged} files)")
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

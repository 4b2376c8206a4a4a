"""``fedgate check``: the pre-commit and CI gate, the same decision as admission, before it."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from compiler.argocd.replica_moves import replica_moves
from compiler.commands.common import add_backend_argument, compile_specs, locate
from compiler.core import Compiled
from compiler.gitrepo import Repository, blob_id
from compiler.incremental import default_cache
from compiler.output import Output, plural
from compiler.render.argocd import FOLDER as ARGOCD_FOLDER
from compiler.spec.load import find_spec_files
from compiler.tree import MANIFEST, diff_tree, parse_manifest
from compiler.wipe import ALLOW_FLAG, Wipe, wipes
from webhook.bundle.model import Bundle
from webhook.engine.decision import Decision
from webhook.engine.request import AdmissionRequest
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request
from webhook.explain import explain

NAME = "check"
HELP = "the pre-commit / CI gate: specs valid, rendered tree current, every change admitted"
DESCRIPTION = """\
Validate every app spec, fail when the rendered tree is not what they render (what `compile
--check` says), and review every rendered manifest that differs from git HEAD as the write
Argo CD will make: CREATE for a new file, UPDATE with the committed version as oldObject,
DELETE for a removed one, from the git writer's identity in the bundle, through the same
engine as the webhook, with the same messages. Exit 0 when everything would be admitted.

FILES (what pre-commit passes) narrow the review to the manifests of those spec or rendered
files; --all reviews every manifest. Unchanged spec files are not compiled again (cache in
.git/fedgate/). A change that deletes every workload of a tenant (or of the tree) fails unless
--allow-empty says it is meant: Argo CD would prune them all.

examples:
  fedgate check                       specs in apps/, tree in rendered/, review what changed
  fedgate check --all                 review every manifest, changed or not
  fedgate check --apps teams --out deploy/rendered
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="FILES",
        help="changed files (spec or rendered); default: whatever changed",
    )
    parser.add_argument("--all", action="store_true", help="review every rendered manifest")
    parser.add_argument(
        ALLOW_FLAG,
        action="store_true",
        help="allow deleting every workload of a tenant or of the tree",
    )
    parser.add_argument(
        "--apps", type=Path, metavar="DIR", help="the app specs (default: apps/ of the repository)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the rendered tree (default: rendered/ of the repository)",
    )
    add_backend_argument(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    repository = Repository.find(Path.cwd())
    where = locate([args.apps] if args.apps else [], args.out)
    apps_dir, tree, root = where.apps[0], where.out, where.root
    compiled, bundle = compile_specs(
        out, find_spec_files([apps_dir]), args, cache=default_cache(root)
    )
    diff = diff_tree(tree, compiled.files)
    reviews = _reviews(compiled, bundle, tree, repository, files=args.files, everything=args.all)
    denied = [r for r in reviews if not r[2].allowed]
    deleted = [] if args.allow_empty else _wipes(compiled, bundle, tree, repository)
    ok = diff.clean and not denied and not deleted
    if out.format == "json":
        out.json(
            {
                "ok": ok,
                "policies": str(args.policies),
                "stale": {
                    "missing": list(diff.added),
                    "stale": list(diff.changed),
                    "extra": list(diff.removed),
                },
                "reviews": [
                    {"file": f, "operation": req.operation, **d.as_json()} for f, req, d in reviews
                ],
                "deletes": [
                    {"tenant": w.tenant, "apps": list(w.apps), "manifests": w.files}
                    for w in deleted
                ],
            }
        )
        return 0 if ok else 1
    if not diff.clean:
        for label, paths in (
            ("missing", diff.added),
            ("stale", diff.changed),
            ("extra", diff.removed),
        ):
            for path in paths:
                out.line(f"  {label:8} {tree / path}")
        out.line(
            f"{tree}/ is not what the specs render: run `fedgate compile {apps_dir} "
            f"--out {tree}` and add the result"
        )
    for file, request, decision in reviews:
        if decision.violations or decision.warnings:
            out.line(f"{file}:")
            for line in explain(request, decision):
                out.line(f"  {line}")
    for wipe in deleted:
        out.line(f"{tree}/: {wipe.message()}")
    _notify_replica_moves(out, compiled, tree, repository)
    verdict = "would all be admitted" if not denied else f"{len(denied)} would be DENIED"
    reviewed = plural(len(reviews), "manifest" if args.all else "changed manifest")
    out.line(
        f"fedgate check: {plural(len(compiled.apps), 'app')}; {tree}/ "
        f"{'up to date' if diff.clean else 'STALE'}; {reviewed} "
        f"reviewed as Argo CD's writes: {verdict}"
        + (f"; DELETES every workload of {_whose(deleted)}" if deleted else "")
    )
    return 0 if ok else 1


def _whose(deleted: list[Wipe]) -> str:
    return ", ".join(f"tenant {w.tenant}" if w.tenant else "every tenant" for w in deleted)


def _committed_manifest(tree: Path, repository: Repository | None) -> dict[str, str]:
    """The files fedgate had written at git HEAD (its manifest there); {} without one."""
    if repository is None:
        return {}
    blob = repository.committed(tree).get(MANIFEST)
    if blob is None:
        return {}
    text = repository.read([blob]).get(blob, b"").decode("utf-8", "replace")
    return parse_manifest(text, f"{tree}/{MANIFEST} at HEAD")


def _wipes(
    compiled: Compiled, bundle: Bundle, tree: Path, repository: Repository | None
) -> list[Wipe]:
    """Tenants (or the tree) whose every workload this change deletes, against git HEAD."""
    return wipes(_committed_manifest(tree, repository), compiled.files, bundle)


def _notify_replica_moves(
    out: Output, compiled: Compiled, tree: Path, repository: Repository | None
) -> None:
    if repository is None:
        return
    committed = repository.committed(tree)
    paths = [p for p in compiled.files if p.endswith("/deployment.yaml") and p in committed]
    changed = [p for p in paths if committed[p] != blob_id(compiled.files[p])]
    blobs = repository.read(committed[p] for p in changed)
    old = {p: blobs[committed[p]] for p in changed if committed[p] in blobs}
    for move in replica_moves(old, {p: compiled.files[p] for p in changed}):
        out.error(f"notice: {move.message(str(tree))}")


def _manifest(path: str) -> bool:
    """A Karmada manifest of the tree (not the Argo CD pieces, not fedgate's own files)."""
    return path.endswith(".yaml") and not path.startswith(f"{ARGOCD_FOLDER}/")


def _selected(
    compiled: Compiled, files: list[Path], tree: Path, committed: Mapping[str, str]
) -> set[str] | None:
    """The rendered paths, present or removed, FILES name (directly, or through their app's
    spec file); None when no FILES were given."""
    if not files:
        return None
    wanted = {str(f.resolve()) for f in files}
    base = str(tree.resolve())
    chosen = {p for p in (*compiled.files, *committed) if f"{base}/{p}" in wanted}
    for app in compiled.apps:
        if app.file in wanted or str(Path(app.file).resolve()) in wanted:
            chosen.update(app.paths)
    return chosen


def _reviews(
    compiled: Compiled,
    bundle: Bundle,
    tree: Path,
    repository: Repository | None,
    *,
    files: list[Path],
    everything: bool,
) -> list[tuple[str, AdmissionRequest, Decision]]:
    """Every rendered manifest to review, as the write Argo CD will make of it."""
    committed = repository.committed(tree) if repository else {}
    rendered = {p: d for p, d in compiled.files.items() if _manifest(p)}
    selected = _selected(compiled, files, tree, committed)
    paths = sorted(
        p
        for p, data in rendered.items()
        if everything
        or (selected is not None and p in selected)
        or (selected is None and committed.get(p) != blob_id(data))
    )
    removed = sorted(
        p
        for p in committed
        if _manifest(p) and p not in compiled.files and (selected is None or p in selected)
    )
    old = (
        repository.read(committed[p] for p in [*paths, *removed] if p in committed)
        if repository
        else {}
    )
    results = []
    for path in [*paths, *removed]:
        before = _load(old.get(committed.get(path, ""))) if path in committed else None
        after = _load(rendered[path]) if path in rendered else None
        if before is None and after is None:
            continue
        request = sync_request(after, before, bundle)
        results.append((str(tree / path), request, review(request, bundle)))
    return results


def _load(data: bytes | None) -> dict[str, Any] | None:
    if data is None:
        return None
    value = yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return value if isinstance(value, dict) else None

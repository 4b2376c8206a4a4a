"""``fedgate check``: the pre-commit and CI gate, the same decision as admission, before it."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from compiler.argocd.replica_moves import replica_moves
from compiler.check.gitrepo import Repository, blob_id
from compiler.check.strayexceptions import stray_exceptions
from compiler.check.tree import TreeCheck, check_tree
from compiler.check.weakenings import ACKNOWLEDGEMENTS, Weakening, acknowledge, weakenings
from compiler.commands.common import (
    add_backend_argument,
    add_base_argument,
    compile_specs,
    judging_day,
    locate,
)
from compiler.compile import statmemo
from compiler.compile.core import Compiled
from compiler.compile.incremental import default_cache
from compiler.compile.wipe import ALLOW_FLAG, Wipe, wipes
from compiler.compile.write import (
    MANIFEST,
    TreeDiff,
    diff_tree,
    digest,
    parse_manifest,
    read_manifest,
)
from compiler.output import Output, plural
from compiler.spec.load import find_spec_files
from webhook.base.errors import Finding, FindingsError, SpecError, UsageError
from webhook.bundle.expiry import EXPIRY_WARNING_DAYS, exception_dates, source_dates
from webhook.bundle.load import read_source
from webhook.bundle.model import Bundle
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
files, and of the files removed since HEAD (pre-commit never passes those); --all reviews
every manifest, and so does a policies/ that differs from HEAD (new rules judge every
manifest's next sync). Unchanged spec files are not compiled again (cache in .git/fedgate/).
A change that deletes every workload of a tenant (or of the tree) fails unless --allow-empty
says it is meant: Argo CD would prune them all.

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
    add_base_argument(parser)
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
    parser.add_argument(
        "--expiry-warning",
        type=int,
        default=EXPIRY_WARNING_DAYS,
        metavar="DAYS",
        help=f"warn of an exception that expires within DAYS (default {EXPIRY_WARNING_DAYS})",
    )
    add_backend_argument(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    repository = Repository.find(Path.cwd(), args.base)
    _refuse_unknown_files(args.files, repository)
    where = locate([args.apps] if args.apps else [], args.out)
    apps_dir, tree, root = where.apps[0], where.out, where.root
    stray = stray_exceptions(root, args.policies, _claimable(args, repository))
    if stray:
        raise FindingsError(stray)
    if repository is not None:
        repository.prefetch(tree, args.policies)  # one git process for both
    rules_changed = _policies_changed(args.policies, repository)
    cache = default_cache(root)
    try:
        compiled, bundle = compile_specs(
            out, find_spec_files([apps_dir]), args, cache=cache, warn=True
        )
    except SpecError as exc:  # an app an exception no longer covers: say which one expired
        known = source_dates(read_source(args.policies), judging_day(args), args.expiry_warning)
        notes = [d.finding() for d in known if d.status != "in force"]
        raise SpecError([*exc.findings, *notes]) from None
    for warning in bundle.warnings:  # a rule that may fail closed on large requests
        out.error(f"warning: {warning.render()}")
    memo_file = cache.with_name(statmemo.TREE_FILE) if cache is not None else None
    memo_key = str(tree.resolve())
    memo = statmemo.load(memo_file, memo_key)
    diff = diff_tree(tree, compiled.files, memo)
    statmemo.save(memo_file, memo_key, memo)
    dated = exception_dates(bundle, args.expiry_warning)
    ended = any(d.status == "expired" for d in dated)  # what it lifted is judged again
    result = check_tree(
        compiled,
        bundle,
        tree,
        repository,
        diff,
        files=args.files,
        everything=args.all or rules_changed or ended,
    )
    deleted = [] if args.allow_empty else _wipes(compiled, bundle, tree, repository)
    weakened, unreadable = _weakened(args.policies, repository) if rules_changed else ([], [])
    silent = [w for w in weakened if not w.acknowledged]
    ok = diff.clean and not result.denied and not deleted and not silent and not unreadable
    if out.format == "json":
        report = _as_json(ok, diff, result, deleted)
        report["errors"] += [f.as_json() for f in unreadable]
        out.json(
            {
                **report,
                "exceptions": [d.as_json() for d in dated],
                "policies": str(args.policies),
                "policiesChanged": rules_changed,
                "weakened": [
                    {"rule": w.rule, "changes": list(w.changes), "acknowledged": w.reason}
                    for w in weakened
                ],
            }
        )
        return 0 if ok else 1
    _report_stale(out, diff, result, tree, apps_dir)
    against = repository.label if repository is not None else "git HEAD"
    if rules_changed:
        out.line(
            f"{args.policies}/ differs from {against}: every synced manifest is reviewed "
            "under the new rules, changed or not"
        )
    _report_weakened(out, args.policies, weakened, unreadable, against)
    _report_reviews(out, result)
    for note in dated:
        if note.status != "in force":
            out.line(note.render())
    for wipe in deleted:
        out.line(f"{tree}/: {wipe.message()}")
    _notify_replica_moves(out, compiled, tree, repository)
    denied = sum(1 for w in result.writes if not w.decision.allowed)
    members = sum(1 for t in result.templates if t.denied)
    verdict = "would all be admitted" if not denied else f"{denied} would be DENIED"
    reviewed = plural(
        len(result.writes),
        "manifest" if args.all or rules_changed or ended else "changed manifest",
    )
    out.line(
        f"fedgate check: {plural(len(compiled.apps), 'app')}; {tree}/ "
        f"{'up to date' if diff.clean else 'STALE'}; {reviewed} "
        f"reviewed as Argo CD's writes: {verdict}"
        + (f"; {plural(members, 'template')} with a member copy DENIED" if members else "")
        + (f"; {plural(len(result.findings), 'manifest')} invalid" if result.findings else "")
        + (
            f"; {plural(len(result.refused), 'object')} Argo CD may not sync"
            if result.refused
            else ""
        )
        + (
            f"; {plural(len(result.unjudged), 'file')} Argo CD acts on that fedgate cannot judge"
            if result.unjudged
            else ""
        )
        + (f"; DELETES every workload of {_whose(deleted)}" if deleted else "")
        + (f"; {plural(len(silent), 'rule')} weakened without acknowledgement" if silent else "")
    )
    return 0 if ok else 1


def _claimable(args: argparse.Namespace, repository: Repository | None) -> list[Path] | None:
    """The files that may claim to be exceptions: FILES; else what changed since the base
    (a file committed earlier was judged then); every file (None) with --all or outside git."""
    if args.files:
        return list(args.files)
    changed = None if args.all or repository is None else repository.changed_files()
    return [f for f in changed if f.is_file()] if changed is not None else None


def _in_repository(policies: Path, repository: Repository | None) -> bool:
    if repository is None or not policies.is_dir():
        return False
    try:
        policies.resolve().relative_to(repository.root.resolve())
    except ValueError:
        return False
    return True


def _policy_files(policies: Path) -> dict[str, bytes] | None:
    """Every file of the bundle in the working tree (hidden ones left out); None when one
    cannot be read."""
    on_disk: dict[str, bytes] = {}
    for directory, folders, names in os.walk(policies):
        folders[:] = [f for f in folders if not f.startswith(".")]
        for name in names:
            path = Path(directory) / name
            if name.startswith(".") or not path.is_file():
                continue
            try:
                on_disk[path.relative_to(policies).as_posix()] = path.read_bytes()
            except OSError:
                return None
    return on_disk


def _policies_changed(policies: Path, repository: Repository | None) -> bool:
    """Whether the bundle in the working tree differs from git HEAD's (a file added, removed
    or edited): its rules then judge every manifest anew, a lowered quota or a new rule
    included. False outside git, or for a bundle outside the repository (no HEAD to compare)."""
    if repository is None or not _in_repository(policies, repository):
        return False
    committed = repository.committed(policies)
    on_disk = _policy_files(policies)
    if on_disk is None:
        return True  # unreadable: the bundle load says why; judge everything
    return {p: blob_id(d) for p, d in on_disk.items()} != {
        p: b for p, b in committed.items() if not _hidden(p)
    }


def _weakened(
    policies: Path, repository: Repository | None
) -> tuple[list[Weakening], list[Finding]]:
    """The rules of the base bundle (git HEAD's) the working tree's removes or weakens, each
    with the reason its acknowledgement gives (``compiler/check/weakenings.py``)."""
    if repository is None or not _in_repository(policies, repository):
        return [], []
    on_disk = _policy_files(policies) or {}
    committed = {p: b for p, b in repository.committed(policies).items() if not _hidden(p)}
    blobs = repository.read(committed.values())
    base = {p: blobs[b].decode("utf-8", "replace") for p, b in committed.items() if b in blobs}
    new = {p: d.decode("utf-8", "replace") for p, d in on_disk.items()}
    found = weakenings(base, new, str(policies))
    return acknowledge(
        found,
        base.get(ACKNOWLEDGEMENTS),
        new.get(ACKNOWLEDGEMENTS),
        f"{policies}/{ACKNOWLEDGEMENTS}",
    )


def _report_weakened(
    out: Output,
    policies: Path,
    weakened: list[Weakening],
    unreadable: list[Finding],
    against: str = "git HEAD",
) -> None:
    for finding in unreadable:
        out.line(f"error: {finding.render()}")
    for weakening in weakened:
        how = "; ".join(weakening.changes)
        if weakening.acknowledged:
            out.line(
                f"note: rule {weakening.rule} is weakened against {against}: {how} "
                f"(acknowledged in {policies}/{ACKNOWLEDGEMENTS}: {weakening.reason})"
            )
        else:
            out.line(
                f"error: rule {weakening.rule} is weakened against {against}: {how}. The webhook "
                "would admit what it stopped from the next sync on: if that is meant, add "
                f"`- {{rule: {weakening.rule}, reason: <why>}}` to {policies}/{ACKNOWLEDGEMENTS} "
                "in this change, for its reviewers to see"
            )


def _hidden(path: str) -> bool:
    return any(part.startswith(".") for part in path.split("/"))


def _refuse_unknown_files(files: list[Path], repository: Repository | None) -> None:
    """A FILE that is neither on disk nor in git HEAD is a typo: reviewing nothing and
    passing would read as "checked". A removed file HEAD has is a change (a DELETE)."""
    for file in files:
        if file.exists() or file.is_symlink():
            continue
        if repository is not None and file.name in repository.committed(file.parent):
            continue
        raise UsageError(
            f"{file}: no such file, here or in git HEAD; FILES are the spec or rendered files "
            "that changed"
        )


def _report_stale(
    out: Output, diff: TreeDiff, result: TreeCheck, tree: Path, apps_dir: Path
) -> None:
    if diff.clean:
        return
    fields: dict[str, list[str]] = {}
    for stale in result.stale_fields:
        owner = f" (owned by {stale.owner})" if stale.owner else ""
        fields.setdefault(stale.file, []).append(f"{stale.pointer}{owner}")
    written = read_manifest(tree)
    for label, paths in (("missing", diff.added), ("stale", diff.changed), ("extra", diff.removed)):
        for path in paths:
            edited = fields.get(str(tree / path))
            cause = (
                "spec changed since the last compile"
                if _as_written(tree / path, written.get(path))
                else "edited by hand"
            )
            detail = f": {cause} at {', '.join(edited)}" if edited else ""
            out.line(f"  {label:8} {tree / path}{detail}")
    out.line(
        f"{tree}/ is not what the specs render: run `fedgate compile {apps_dir} "
        f"--out {tree}` and add the result (fedgate's files are written from the specs only)"
    )


def _as_written(path: Path, sha256: str | None) -> bool:
    """The file is byte for byte what fedgate compile last wrote there (its manifest's
    digest), so a difference from what the specs render now comes from the specs."""
    try:
        return sha256 is not None and digest(path.read_bytes()) == sha256
    except OSError:
        return False


def _report_reviews(out: Output, result: TreeCheck) -> None:
    for finding in (*result.findings, *result.refused, *result.unjudged):
        out.line(f"error: {finding.render()}")
    for file in result.unsynced:
        out.line(
            f"warning: {file}: no Argo CD Application syncs this file: it never reaches the cluster"
        )
    for write in result.writes:
        if write.decision.violations or write.decision.warnings or write.notes:
            out.line(f"{write.file}:")
            for line in explain(write.request, write.decision):
                out.line(f"  {line}")
            for note in write.notes:
                out.line(f"  note  {note}")
    for template in result.templates:
        for cluster, found in template.violations.items():
            for member in found:
                _, kind, namespace, name = template.manifest.identity
                where = "/".join(p for p in (namespace, name) if p)
                out.line(
                    f"{template.manifest.file}: {kind} {where}: "
                    f"{member.violation.action} {member.describe(cluster)}"
                    f"{member.violation.staged_note}"
                )


def _as_json(ok: bool, diff: TreeDiff, result: TreeCheck, deleted: list[Wipe]) -> dict[str, Any]:
    return {
        "ok": ok,
        "stale": {
            "missing": list(diff.added),
            "stale": list(diff.changed),
            "extra": list(diff.removed),
            "fields": [
                {"file": f.file, "pointer": f.pointer, "owner": f.owner}
                for f in result.stale_fields
            ],
        },
        "reviews": [
            {
                "file": w.file,
                "operation": w.request.operation,
                "application": w.application,
                "notes": list(w.notes),
                **w.decision.as_json(),
            }
            for w in result.writes
        ],
        "members": [
            {
                "file": t.manifest.file,
                "kind": t.manifest.identity[1],
                "namespace": t.manifest.identity[2],
                "name": t.manifest.identity[3],
                "violations": {c: [v.as_json() for v in vs] for c, vs in t.violations.items()},
            }
            for t in result.templates
            if t.violations
        ],
        "unsynced": list(result.unsynced),
        "errors": [f.as_json() for f in result.findings],
        "refused": [f.as_json() for f in result.refused],
        "unjudged": [f.as_json() for f in result.unjudged],
        "deletes": [
            {"tenant": w.tenant, "apps": list(w.apps), "manifests": w.files} for w in deleted
        ],
    }


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

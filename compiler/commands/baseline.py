"""git HEAD's side of ``fedgate plan``: which files of the rendered tree differ from HEAD, and
what HEAD's versions plan to, so each app and template can be shown as added, changed or
removed, with before -> after.

The before side is planned as the working tree is (``compiler.plan``), with today's bundle:
an app from the spec git HEAD has for it, a hand-written template from HEAD's version of its
file, and both with the Karmada policies of HEAD's version of every changed file. Apps and
templates whose files did not change are planned again only when a changed policy may select
them. Reads git through ``Repository`` (one ``ls-tree`` per folder, one ``cat-file`` for all
the blobs); only files that differ from HEAD are read from it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from compiler.argocd.manifests import MANIFEST_SUFFIXES, Manifest, parse_manifests
from compiler.check.gitrepo import Repository, blob_id
from compiler.check.synced import Applied, SyncedTree
from compiler.compile.core import Compiled, render_file
from compiler.compile.write import MANIFEST, TreeError, parse_manifest, read_manifest
from compiler.plan.changes import (
    AppChange,
    FileAction,
    PolicyChange,
    TemplateChange,
    app_action,
    may_select,
    policy_changes,
    template_action,
)
from compiler.plan.core import AppPlan, plan_app
from compiler.plan.exact import exact
from compiler.plan.failover import placed
from compiler.plan.settle import needs_room
from compiler.plan.tree import TemplateResult, is_template, member_violations, plan_template
from compiler.render.argocd import FOLDER as ARGOCD_FOLDER
from compiler.render.pipeline import RenderedApp
from compiler.spec.load import parse_specs
from webhook.bundle.model import Bundle
from webhook.errors import SpecError
from webhook.karmada.detector import Policies
from webhook.karmada.propagation import TemplatePlan

SPEC_SUFFIXES = (".yaml", ".yml")
Key = tuple[str, str]


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


@dataclass(frozen=True)
class TreeChanges:
    """Every file of the rendered tree that differs from git HEAD, both sides' bytes."""

    files: Mapping[str, FileAction] = field(default_factory=dict)
    head: Mapping[str, bytes] = field(default_factory=dict)
    """HEAD's bytes of each changed or removed file."""
    now: Mapping[str, bytes] = field(default_factory=dict)
    """The working side's bytes of each added or changed file (fedgate's as compile renders
    them)."""
    fedgate: frozenset[str] = frozenset()
    """fedgate's files, on either side (HEAD's by its committed ``.fedgate-manifest``)."""
    applied: Applied = list
    """What Argo CD makes of a file's manifests (its Application's namespace)."""

    def app_files(self) -> dict[Key, dict[str, FileAction]]:
        """The changed files of each app (fedgate's ``namespace/name/kind.yaml``)."""
        found: dict[Key, dict[str, FileAction]] = {}
        for path, action in self.files.items():
            key = app_key(path) if path in self.fedgate else None
            if key is not None:
                found.setdefault(key, {})[path] = action
        return found

    def hand_written(self) -> list[str]:
        """The changed files fedgate did not write."""
        return [p for p in self.files if p not in self.fedgate]

    def diff(self, path: str, tree: Path) -> str:
        """The unified diff of one file, as ``git diff`` names the sides."""
        action = self.files[path]
        before = self.head.get(path, b"").decode(errors="replace").splitlines(keepends=True)
        after = self.now.get(path, b"").decode(errors="replace").splitlines(keepends=True)
        return "".join(
            difflib.unified_diff(
                before,
                after,
                "/dev/null" if action == "add" else f"a/{tree / path}",
                "/dev/null" if action == "remove" else f"b/{tree / path}",
            )
        )

    def manifests(self, side: Mapping[str, bytes], paths: Iterable[str]) -> list[Manifest]:
        """The manifests of ``side``'s version of ``paths`` (unreadable ones: none)."""
        found: list[Manifest] = []
        for path in paths:
            data = side.get(path)
            if data is None:
                continue
            try:
                manifests, _ = parse_manifests(data.decode("utf-8"), path)
            except UnicodeDecodeError:
                continue
            found += self.applied(manifests)
        return found


def _fedgate_at_head(repository: Repository, committed: Mapping[str, str], tree: Path) -> set[str]:
    """The files fedgate wrote at HEAD: its committed manifest (else the working tree's)."""
    blob = committed.get(MANIFEST)
    text = repository.read([blob]).get(blob, b"") if blob is not None else b""
    try:
        if text:
            return set(parse_manifest(text.decode(errors="replace"), f"{tree}/{MANIFEST}"))
        return set(read_manifest(tree)) if tree.is_dir() else set()
    except TreeError:
        return set()


def tree_changes(
    repository: Repository | None,
    tree: Path,
    fedgate: Mapping[str, bytes],
    hand_written: Sequence[str] = (),
    *,
    removals: bool = True,
    applied: Applied = list,
) -> TreeChanges:
    """What differs between HEAD's ``tree`` and the working side: ``fedgate``'s files as the
    compile renders them, the ``hand_written`` files as they are on disk. ``removals``: also
    the files HEAD has that the working side does not (fedgate's, by HEAD's manifest, and
    hand-written manifests)."""
    committed = repository.committed(tree) if repository is not None else {}
    now = dict(fedgate)
    for path in hand_written:
        data = _read(tree / path)
        if data is not None:
            now[path] = data
    files: dict[str, FileAction] = {}
    for path, data in now.items():
        blob = committed.get(path)
        if blob is None:
            files[path] = "add"
        elif blob != blob_id(data):
            files[path] = "change"
    for path in committed if removals else ():
        # fedgate's files the compile no longer writes, hand-written files deleted (a file
        # fedgate wrote before and the compile will delete is in neither list either)
        if path not in now and path.endswith(MANIFEST_SUFFIXES):
            files[path] = "remove"
    removed = [p for p, a in files.items() if a == "remove"]
    wrote = _fedgate_at_head(repository, committed, tree) if repository and removed else set()
    old = (
        repository.read(committed[p] for p, a in files.items() if a != "add")
        if repository is not None
        else {}
    )
    return TreeChanges(
        files=dict(sorted(files.items())),
        head={p: old[committed[p]] for p, a in files.items() if a != "add" and committed[p] in old},
        now={p: now[p] for p, a in files.items() if a != "remove"},
        fedgate=frozenset({*fedgate, *(p for p in removed if p in wrote)}),
        applied=applied,
    )


def app_key(path: str) -> Key | None:
    """The app a fedgate file belongs to (``namespace/name/kind.yaml``)."""
    parts = path.split("/")
    if len(parts) != 3 or parts[0] == ARGOCD_FOLDER:
        return None
    return parts[0], parts[1]


@dataclass
class HeadSpecs:
    """The apps git HEAD's spec files give, rendered with today's bundle; looked up by the
    spec file an app is in now, else among every spec file that differs from HEAD."""

    repository: Repository
    bundle: Bundle
    roots: Sequence[Path]
    found: dict[Key, RenderedApp | None] = field(default_factory=dict)
    _searched: bool = False

    def _load(self, text: str, file: str) -> None:
        try:
            apps = parse_specs(text, file)
            renders: Iterable[RenderedApp] = render_file(apps, self.bundle)
        except SpecError:
            return
        for rendered in renders:
            self.found.setdefault(rendered.app.key, rendered)

    def _search(self) -> None:
        """Every spec file under the roots that differs from (or is gone since) HEAD."""
        self._searched = True
        wanted: dict[str, str] = {}
        for root in self.roots:
            for relative, blob in self.repository.committed(root).items():
                path = root / relative
                if relative.endswith(SPEC_SUFFIXES) and blob_id(_read(path) or b"") != blob:
                    wanted[str(path)] = blob
        contents = self.repository.read(wanted.values())
        for file, blob in sorted(wanted.items()):
            if blob in contents:
                self._load(contents[blob].decode(errors="replace"), file)

    def get(self, key: Key, file: str | None) -> RenderedApp | None:
        """HEAD's render of app ``key``; ``file``: its spec file now (None: it has none)."""
        if key in self.found:
            return self.found[key]
        if file is not None:
            path = Path(file)
            blob = self.repository.committed(path.parent).get(path.name)
            if blob is not None:
                data = self.repository.read([blob]).get(blob)
                if data is not None:
                    self._load(data.decode(errors="replace"), file)
        if key not in self.found and not self._searched:
            self._search()
        return self.found.setdefault(key, None)


@dataclass(frozen=True)
class Before:
    """The before side of the plan: the policies, and how to plan an app or template there."""

    policies: Policies
    changed: tuple[dict[str, Any], ...]
    """The policies that differ between the sides (either side's version)."""
    bundle: Bundle
    tree: tuple[Manifest, ...] = ()
    """The synced manifests with each changed file as HEAD has it: the room a division by
    the clusters' room is made in."""

    def reaches(self, obj: dict[str, Any] | Any) -> bool:
        """Whether a changed policy may select ``obj`` (then it is planned on both sides)."""
        return any(may_select(p, obj) for p in self.changed)

    def plan(self, manifest: Manifest) -> TemplateResult:
        """A template as this side plans it: divided by the room of the whole ``tree`` where
        its policy divides by room (as the working side's plan does), else alone."""
        alone = plan_template(manifest, self.policies, self.bundle)
        if not needs_room([(manifest, alone.plan)], self.policies.by_ref):
            return alone
        found = self._by_room.get(manifest.identity)
        if found is None:
            return alone
        return TemplateResult(manifest, found, member_violations(found, self.policies, self.bundle))

    @cached_property
    def _by_room(self) -> dict[tuple[str, str, str, str], TemplatePlan]:
        plans = placed(self.tree, self.policies, self.bundle)
        return {m.identity: p for m, p in exact(plans, self.policies, self.bundle)}


def head_tree(working: Sequence[Manifest], changes: TreeChanges) -> tuple[Manifest, ...]:
    """``working`` with each changed file as HEAD has it, in the working tree's order (the
    changed files the working tree no longer has, last)."""
    found: list[Manifest] = []
    seen: set[str] = set()
    for manifest in working:
        if manifest.file not in changes.files:
            found.append(manifest)
        elif manifest.file not in seen:
            seen.add(manifest.file)
            found += changes.manifests(changes.head, [manifest.file])
    found += changes.manifests(changes.head, sorted(set(changes.files) - seen))
    return tuple(found)


def before_side(
    changes: TreeChanges, synced: SyncedTree, policies: Policies, bundle: Bundle
) -> Before:
    """HEAD's policies: the working side's, with each changed file's as HEAD has it."""
    old = [m.object for m in changes.manifests(changes.head, changes.files)]
    new = [m.object for m in synced.manifests if m.file in changes.files]
    changed = [dict(o) for o in (*old, *new) if Policies.is_policy(o)]
    tree = head_tree(synced.manifests, changes)
    if not changed:
        return Before(policies, (), bundle, tree)
    kept = (m.object for m in synced.manifests if m.file not in changes.files)
    before = Policies.of(o for o in (*kept, *old) if Policies.is_policy(o))
    return Before(before, tuple(changed), bundle, tree)


def app_changes(
    after: Sequence[AppPlan],
    compiled: Compiled,
    changes: TreeChanges,
    before: Before,
    head: HeadSpecs | None,
    *,
    removals: bool = True,
) -> list[AppChange]:
    """Every app of ``after`` (and, with ``removals``, every app HEAD had and the working side
    has not) compared with HEAD."""
    renders = {r.app.key: r for r in compiled.rendered}
    files_of = changes.app_files()
    spec_file = {a.key: a.file for a in compiled.apps}
    result = []
    for plan in after:
        key = (plan.namespace, plan.name)
        files, rendered = files_of.get(key, {}), renders[key]
        deployment = next(o for o in rendered.objects if o["kind"] == "Deployment")
        previous: AppPlan | None = None
        known = True
        others_at_head = any(path not in files for path in rendered.files())
        if files and (others_at_head or not all(a == "add" for a in files.values())):
            old = head.get(key, spec_file.get(key)) if head is not None else None
            known = old is not None
            previous = plan_app(old, before.bundle, before.policies) if old is not None else None
        elif not files:  # the same app: only a changed policy can change what it plans to
            reached = before.reaches(deployment)
            previous = plan_app(rendered, before.bundle, before.policies) if reached else plan
        action = app_action(plan, previous, files, known, others_at_head=others_at_head)
        result.append(AppChange(*key, action, plan, previous, known, files))
    for key in sorted(set(files_of) - set(renders)) if removals else []:
        old = head.get(key, None) if head is not None else None
        previous = plan_app(old, before.bundle, before.policies) if old is not None else None
        result.append(AppChange(*key, "remove", None, previous, old is not None, files_of[key]))
    return sorted(result, key=lambda c: (c.namespace, c.name))


def hand_written_policies(changes: TreeChanges, synced: SyncedTree) -> list[PolicyChange]:
    """The hand-written Karmada policies that differ from HEAD."""
    touched = set(changes.hand_written())
    old = changes.manifests(changes.head, touched)
    new = (m for m in synced.hand_written.manifests if m.file in touched)
    return policy_changes(
        ((m.file, m.object) for m in old if Policies.is_policy(m.object)),
        ((m.file, m.object) for m in new if Policies.is_policy(m.object)),
    )


def _object(manifest: Manifest | None) -> Any:
    return manifest.object if manifest is not None else None


def template_changes(
    after: Sequence[TemplateResult], changes: TreeChanges, before: Before
) -> list[TemplateChange]:
    """Every hand-written template of ``after`` and every one HEAD's changed files had."""
    touched = changes.hand_written()
    old = {
        m.identity: m
        for m in changes.manifests(changes.head, touched)
        if is_template(m.object) and not Policies.is_policy(m.object)
    }
    result = []
    for template in after:
        identity = template.manifest.identity
        previous: TemplateResult | None = None
        if template.manifest.file in changes.files or identity in old:
            head = old.get(identity)
            if head is not None:
                previous = before.plan(head)
            edited = _object(head) != template.manifest.object
            action = template_action(template, previous, edited)
        else:
            if before.reaches(template.manifest.object):
                previous = before.plan(template.manifest)
            else:
                previous = template
            action = template_action(template, previous, False)
        result.append(TemplateChange(identity, action, template, previous))
    now = {t.manifest.identity for t in after}
    for identity, manifest in sorted(old.items()):
        if identity not in now:
            previous = before.plan(manifest)
            result.append(TemplateChange(identity, "remove", None, previous))
    return result

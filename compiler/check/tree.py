"""What ``fedgate check`` reviews of the synced tree: every manifest Argo CD will sync, whoever
wrote it, as the write Argo CD will make, and what Karmada makes of the templates on each
member.

This module reads (the working tree, git HEAD) and calls the pure parts: ``writes`` (the
writes and their reviews), ``plan.tree`` (each template's member copies judged). By default it
looks at what differs from HEAD: fedgate's files as the working tree has them (a file compile
has yet to write: as it will write it), hand-written files beside them, files removed since
HEAD; ``files`` narrows that to some spec or rendered files (and the files removed since HEAD,
which pre-commit never passes), ``everything`` widens it to every synced file. Every
hand-written file is checked for an Application that syncs it, and for being one Argo CD acts
on that is no object to review (``argocd/acting_files.py``: source overrides, synced jsonnet,
the Argo CD folder; and links out of the repository).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from compiler.argocd.acting_files import acting_files
from compiler.argocd.manifests import Manifest, parse_manifests
from compiler.argocd.sync import ArgoCDTree
from compiler.check.gitrepo import Repository, blob_id
from compiler.check.synced import hand_written_files
from compiler.check.writes import (
    CLUSTER_SCOPED,
    Write,
    as_synced,
    file_writes,
    group_kind,
    reaches,
    syncing,
    template_keys,
)
from compiler.compile.core import Compiled
from compiler.compile.resolve import Resolver
from compiler.compile.write import TreeDiff
from compiler.plan.tree import TemplateResult, is_template, plan_template, policies_of
from compiler.render.argocd import FOLDER as ARGOCD_FOLDER
from compiler.render.argocd import ROOT_APPLICATION
from compiler.render.pipeline import object_path
from webhook.base.errors import Finding
from webhook.base.ledger import ANNOTATION, LedgerError, decode, owner_of
from webhook.bundle.index import TreeIndex
from webhook.bundle.model import Bundle
from webhook.engine.context import Review
from webhook.engine.decision import Decision
from webhook.engine.identity import identify
from webhook.engine.lifting import lift
from webhook.engine.ownership import changed_pointers
from webhook.engine.review import review
from webhook.engine.targets.member_copies import label_selected
from webhook.karmada.detector import Policies, meta_str

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class StaleField:
    """A field of a fedgate file that differs from what the specs render, and its owner."""

    file: str
    pointer: str
    owner: str | None


@dataclass(frozen=True)
class TreeCheck:
    """What ``check_tree`` found: the writes reviewed, member copies judged, and problems."""

    writes: tuple[Write, ...] = ()
    templates: tuple[TemplateResult, ...] = ()
    """Templates whose member copies were judged (those with a denial are failures)."""
    unsynced: tuple[str, ...] = ()
    """Hand-written manifest files no Application syncs."""
    findings: tuple[Finding, ...] = ()
    """Manifests that cannot be read (invalid YAML, no kind, ...)."""
    stale_fields: tuple[StaleField, ...] = ()
    refused: tuple[Finding, ...] = ()
    """Hand-written objects the Application syncing them may not sync (its AppProject)."""
    unjudged: tuple[Finding, ...] = field(default=())
    """Hand-written files Argo CD acts on that fedgate cannot judge as objects
    (``argocd/acting_files.py``): source overrides, synced jsonnet, files in the Argo CD
    folder, symbolic links out of the repository."""

    @property
    def denied(self) -> bool:
        return (
            any(not w.decision.allowed for w in self.writes)
            or any(t.denied for t in self.templates)
            or bool(self.findings)
            or bool(self.refused)
            or bool(self.unjudged)
        )


OVERRIDES = frozenset({"OverridePolicy", "ClusterOverridePolicy"})


def _label_selected_overrides(
    writes: list[Write],
    bundle: Bundle,
    disk: Mapping[str, bytes],
    argocd: ArgoCDTree | None,
    prefix: str,
) -> list[Write]:
    """Git's override selecting by label, judged as the webhook judges it against the synced
    tree (``targets.member_copies.label_selected``): check's bundle carries no index, so the
    tree is it, read only when such an override is written."""
    rule = next((r for r in bundle.rules if r.id == "overrides.member-copies"), None)
    wanted = [
        i
        for i, w in enumerate(writes)
        if rule is not None
        and w.request.operation != "DELETE"
        and w.request.kind.group == "policy.karmada.io"
        and w.request.kind.kind in OVERRIDES
        and any(_unnamed_selector(s) for s in _selectors(w.request.object))
    ]
    if not wanted or rule is None:
        return writes
    objects = [
        m.object
        for path, data in disk.items()
        if _karmada_file(path)
        for m in as_synced(_parse(path, data)[0], argocd, prefix)
    ]
    with_tree = replace(bundle, index=TreeIndex.of(objects))
    out = list(writes)
    for i in wanted:
        write = out[i]
        request = write.request
        tenant = bundle.tenant_of_namespace(request.namespace) if request.namespace else None
        identity = identify(request.user, bundle, tenant)
        context = Review(request, with_tree, identity, tenant, point="check", reviewer=review)
        if identity.writer != "git":
            continue
        found, lifted, expired = lift(label_selected(context, rule), context, bundle.today)
        extra = Decision.of(found, notes=expired, lifted=lifted)
        if extra.violations or extra.warnings or extra.exceptions:
            before = write.decision
            decision = replace(
                before,
                allowed=before.allowed and extra.allowed,
                violations=tuple(sorted({*before.violations, *extra.violations})),
                warnings=(*before.warnings, *extra.warnings),
                audit=tuple(sorted({*before.audit, *extra.audit})),
                exceptions=tuple(sorted({*before.exceptions, *extra.exceptions})),
            )
            out[i] = replace(write, decision=decision)
    return out


def _selectors(obj: Mapping[str, Any] | None) -> list[Any]:
    spec = obj.get("spec") if isinstance(obj, Mapping) else None
    found = spec.get("resourceSelectors") if isinstance(spec, Mapping) else None
    return found if isinstance(found, list) else []


def _unnamed_selector(selector: Any) -> bool:
    return isinstance(selector, Mapping) and not selector.get("name")


def _karmada_file(path: str) -> bool:
    return path.endswith(MANIFEST_SUFFIXES) and not path.startswith(f"{ARGOCD_FOLDER}/")


def applications(compiled: Compiled) -> ArgoCDTree | None:
    """The tenant Applications compile writes (the root Application syncs Argo CD's own
    objects, not Karmada's); None without policies/argocd.yaml."""
    objects = []
    for path, data in compiled.files.items():
        if path.startswith(f"{ARGOCD_FOLDER}/"):
            found, _ = parse_manifests(data.decode("utf-8"), path)
            objects += [m.object for m in found if meta_str(m.object, "name") != ROOT_APPLICATION]
    return ArgoCDTree.of(objects) if objects else None


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _fedgate_disk(tree: Path, compiled: Compiled, diff: TreeDiff) -> dict[str, bytes]:
    """fedgate's Karmada files as the working tree has them (as compile writes them, where it
    has yet to)."""
    differing = set(diff.changed)
    contents = {}
    for path, data in compiled.files.items():
        if not _karmada_file(path):
            continue
        disk = _read(tree / path) if path in differing else None
        contents[path] = disk if disk is not None else data
    return contents


def _chosen(
    compiled: Compiled,
    files: Sequence[Path],
    tree: Path,
    paths: Iterable[str],
) -> set[str] | None:
    """The tree paths FILES name (a rendered file, or every file of a spec file's apps)."""
    if not files:
        return None
    resolve = Resolver()
    wanted = {resolve(f) for f in files}
    base = str(tree.resolve())
    chosen = {p for p in paths if f"{base}/{p}" in wanted}
    for app in compiled.apps:
        if app.file in wanted or resolve(app.file) in wanted:
            chosen.update(app.paths)
    return chosen


def _parse(path: str, data: bytes | None) -> tuple[list[Manifest], list[Finding]]:
    if data is None:
        return [], []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [], [Finding(path, 0, "", f"not UTF-8 text: {exc}")]
    return parse_manifests(text, path)


def _stale_fields(
    tree: Path, compiled: Compiled, diff: TreeDiff, disk: Mapping[str, bytes]
) -> list[StaleField]:
    """Each field a hand edit changed in a fedgate file, with its owner in the ledger."""
    found = []
    for path in diff.changed:
        if path not in disk or not _karmada_file(path):
            continue
        edited, _ = _parse(path, disk[path])
        rendered, _ = _parse(path, compiled.files[path])
        if len(edited) != 1 or len(rendered) != 1:
            continue
        want, have = rendered[0].object, edited[0].object
        try:
            ledger = decode(((want.get("metadata") or {}).get("annotations") or {})[ANNOTATION])
        except (KeyError, LedgerError, TypeError):
            ledger = {}
        for pointer in changed_pointers(want, have):
            owned = owner_of(pointer, ledger)
            found.append(StaleField(str(tree / path), pointer, owned[0] if owned else None))
    return found


def _app_index(compiled: Compiled) -> dict[tuple[str, str, str], list[str]]:
    """(namespace, kind, name) -> the app directories whose policies select that object."""
    index: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for app in compiled.apps:
        directory = f"{app.namespace}/{app.name}"
        for _, kind, name, _ in app.owned:
            index[(app.namespace, kind, name)].append(directory)
        for name in app.config_maps:
            index[(app.namespace, "ConfigMap", name)].append(directory)
        for name in app.secrets:
            index[(app.namespace, "Secret", name)].append(directory)
    return index


def check_tree(
    compiled: Compiled,
    bundle: Bundle,
    tree: Path,
    repository: Repository | None,
    diff: TreeDiff,
    *,
    files: Sequence[Path] = (),
    everything: bool = False,
) -> TreeCheck:
    """Review what Argo CD will write from ``tree`` and judge the templates it touches."""
    argocd = applications(compiled)
    prefix = bundle.argocd.path if bundle.argocd is not None else str(tree)
    committed = {
        p: b
        for p, b in (repository.committed(tree) if repository else {}).items()
        if _karmada_file(p)
    }
    disk = _fedgate_disk(tree, compiled, diff)
    all_hand = hand_written_files(tree, compiled.files)
    acting = [
        Finding(str(tree / path), 0, "", why)
        for path, why in acting_files(
            all_hand, prefix, argocd, _all_applications(compiled), ARGOCD_FOLDER
        )
    ]
    acting += _outside_links(tree, all_hand, repository)
    judged_elsewhere = {f.file for f in acting}
    hand_paths = [
        p
        for p in all_hand
        if not p.startswith(f"{ARGOCD_FOLDER}/") and str(tree / p) not in judged_elsewhere
    ]
    unread = [p for p in hand_paths if not p.endswith(MANIFEST_SUFFIXES)]  # jsonnet, unsynced
    for path in hand_paths:
        if path.endswith(MANIFEST_SUFFIXES):
            data = _read(tree / path)
            if data is not None:
                disk[path] = data
    previous = {p for p in committed if p not in disk}  # at HEAD, gone from the tree
    chosen = _chosen(compiled, files, tree, [*disk, *previous])
    if everything:
        candidates = sorted({*disk, *previous})
    elif chosen is not None:  # and every removed file: pre-commit never passes one
        candidates = sorted({p for p in disk if p in chosen} | previous)
    else:
        candidates = sorted(
            {p for p, data in disk.items() if committed.get(p) != blob_id(data)} | previous
        )
    heads = (
        repository.read(committed[p] for p in candidates if p in committed) if repository else {}
    )
    old_contents = {
        p: heads[committed[p]] for p in candidates if p in committed and committed[p] in heads
    }
    hand_written = {
        path: (as_synced(manifests, argocd, prefix), problems)
        for path in hand_paths
        if path in disk
        for manifests, problems in [_parse(path, disk[path])]
    }
    findings = [
        replace(f, file=str(tree / f.file))
        for _, problems in hand_written.values()
        for f in problems
    ]
    unsynced = tuple(
        str(tree / p)
        for p in sorted([*hand_written, *unread])
        if argocd is not None and not syncing(argocd, f"{prefix}/{p}")
    )
    writes: list[Write] = []
    refused: list[Finding] = []
    new_templates: list[Manifest] = []
    changed_policies: list[Manifest] = []
    for path in candidates:
        new, problems = _parse(path, disk.get(path))
        old, _ = _parse(path, old_contents.get(path))
        new, old = as_synced(new, argocd, prefix), as_synced(old, argocd, prefix)
        findings += [
            replace(f, file=str(tree / f.file)) for f in problems if path not in hand_written
        ]
        new_templates += [m for m in new if is_template(m.object)]
        changed_policies += [m for m in (*new, *old) if Policies.is_policy(m.object)]
        apps = syncing(argocd, f"{prefix}/{path}") if argocd is not None else [None]
        if not apps:
            # No write (warned about above, for hand-written files), but its templates and
            # policies are judged on the members as `fedgate plan` plans them: the platform may
            # sync the file with an Application of its own, and one tree gets one verdict.
            continue
        writes += file_writes(
            str(tree / path), new, old, apps[0], bundle, unchanged=everything or chosen is not None
        )
        if path in hand_written and argocd is not None:
            refused += _sync_refusals(argocd, f"{prefix}/{path}", str(tree / path), new)
    writes = _label_selected_overrides(writes, bundle, disk, argocd, prefix)
    changes = _Changes(tuple(new_templates), tuple(changed_policies))
    templates = _judge(compiled, bundle, disk, hand_written, changes, tree)
    return TreeCheck(
        tuple(writes),
        templates,
        unsynced,
        tuple(sorted(set(findings))),
        tuple(_stale_fields(tree, compiled, diff, disk)),
        tuple(refused),
        tuple(sorted(acting)),
    )


def _all_applications(compiled: Compiled) -> list[Mapping[str, Any]]:
    """Every Application fedgate writes, the root one included."""
    found = []
    for path, data in compiled.files.items():
        if path.startswith(f"{ARGOCD_FOLDER}/"):
            objects, _ = parse_manifests(data.decode("utf-8"), path)
            found += [m.object for m in objects if m.object.get("kind") == "Application"]
    return found


def _outside_links(
    tree: Path, paths: Iterable[str], repository: Repository | None
) -> list[Finding]:
    """Symbolic links Argo CD calls out of bounds, among the hand-written files of the tree
    and every link the index holds (a linked directory, or one outside the tree, counts: Argo
    CD walks the whole repository): its repo server then renders nothing of the repository
    (``CheckOutOfBoundsSymlinks``), so no Application of it syncs, while check would judge
    whatever a link reaches here."""
    if repository is None:
        return []
    root = os.path.abspath(repository.root)
    named = {os.path.abspath(tree / p): str(tree / p) for p in paths}
    for link in repository.symbolic_links():  # anywhere in the repository, directories too
        file = os.path.join(root, link)
        named.setdefault(file, os.path.relpath(file))
    found = []
    for file, shown in sorted(named.items()):
        try:
            target = os.readlink(file)
        except OSError:
            continue  # not a link (or gone from the working tree)
        if out_of_bounds(root, file, target):
            found.append(
                Finding(
                    shown,
                    0,
                    "",
                    f"a symbolic link out of the repository (to {target}): Argo CD refuses "
                    "to render any Application of a repository holding one (out-of-bounds "
                    "symlink), so no change of any tenant would sync; commit the file itself",
                )
            )
    return found


def out_of_bounds(root: str, link: str, target: str) -> bool:
    """``CheckOutOfBoundsSymlinks`` for one link (absolute paths, ``target`` as ``readlink``
    gives it): every absolute target, and every relative one that leaves ``root`` at any step
    of its parts (``a/../../x`` does, even if it comes back)."""
    if os.path.isabs(target):
        return True
    current = os.path.dirname(link)
    for part in target.split("/"):
        current = os.path.normpath(os.path.join(current, part))
        relative = os.path.relpath(current, root)
        if relative == ".." or relative.startswith("../"):
            return True
    return False


def _sync_refusals(
    argocd: ArgoCDTree, repo_path: str, file: str, manifests: Sequence[Manifest]
) -> list[Finding]:
    """The objects of a hand-written file that the Application syncing it may not sync (its
    AppProject's kinds and namespaces, compile checks fedgate's own): Argo CD then fails the
    whole sync operation ("one or more synchronization tasks are not valid"), so none of the
    tenant's changes reach the cluster."""
    found = []
    for manifest in manifests:
        namespaced = group_kind(manifest.object) not in CLUSTER_SCOPED
        for why in argocd.object_refusals(repo_path, manifest.object, namespaced=namespaced):
            found.append(
                Finding(
                    file,
                    manifest.line,
                    "",
                    f"{why}: Argo CD fails the whole sync of the Application, every other "
                    "change of it included",
                )
            )
    return found


@dataclass(frozen=True)
class _Changes:
    """What a check writes: the templates and policies whose member copies are judged again."""

    templates: tuple[Manifest, ...]
    """Templates written (new or changed)."""
    policies: tuple[Manifest, ...]
    """Policies written or removed, both versions: what they reach is judged again."""


def _judge(  # noqa: PLR0917 - one private step of check_tree
    compiled: Compiled,
    bundle: Bundle,
    disk: Mapping[str, bytes],
    hand_written: Mapping[str, tuple[list[Manifest], list[Finding]]],
    changes: _Changes,
    tree: Path,
) -> tuple[TemplateResult, ...]:
    """Each member copy of the templates written, and of those a changed policy reaches, with
    every hand-written policy and the policies of the apps that select them."""
    index = _app_index(compiled)
    fedgate_objects: dict[str, list[Manifest]] = {}

    def fedgate_file(path: str) -> list[Manifest]:
        if path not in fedgate_objects:
            fedgate_objects[path] = _parse(path, disk.get(path))[0]
        return fedgate_objects[path]

    templates = {m.identity: m for m in changes.templates}
    if changes.policies:
        by_name: dict[tuple[str, str], list[tuple[tuple[str, str, str, str], str]]] = {}
        for app in compiled.apps:
            for api_version, kind, name, _ in app.owned:
                identity = (api_version, kind, app.namespace, name)
                path = object_path(app.namespace, app.name, kind)
                by_name.setdefault((kind, name), []).append((identity, path))
        for policy in changes.policies:
            keys = template_keys(policy.object, meta_str(policy.object, "namespace"))
            for key in keys:  # a named selector is one lookup; others look at every object
                if key[3] is not None:
                    found = by_name.get((key[1], key[3]), [])
                else:
                    found = [entry for entries in by_name.values() for entry in entries]
                for identity, path in found:
                    if reaches(key, identity):
                        for manifest in fedgate_file(path):
                            templates.setdefault(manifest.identity, manifest)
            for manifests, _ in hand_written.values():
                for manifest in manifests:
                    reached = any(reaches(k, manifest.identity) for k in keys)
                    if is_template(manifest.object) and reached:
                        templates.setdefault(manifest.identity, manifest)
    if not templates:
        return ()
    objects = [m.object for manifests, _ in hand_written.values() for m in manifests]
    directories = {
        d
        for (_, kind, namespace, name) in templates
        for d in index.get((namespace, kind, name), ())
    }
    for directory in directories:
        namespace, name = directory.split("/", 1)
        for kind in ("PropagationPolicy", "OverridePolicy"):
            objects += [m.object for m in fedgate_file(object_path(namespace, name, kind))]
    policies = policies_of(objects)
    results = []
    for manifest in sorted(templates.values(), key=lambda m: m.identity):
        located = Manifest(
            str(tree / manifest.file), manifest.line, manifest.object, manifest.index
        )
        results.append(plan_template(located, policies, bundle, point="check"))
    return tuple(results)

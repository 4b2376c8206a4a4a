"""Which rules a change of ``policies/`` removes or weakens, against a base (git HEAD), and
which of them the change acknowledges.

A rule folder deleted, an action lowered (deny -> warn -> audit), a match that no longer covers
a kind, operation, subresource or namespace scope it covered, a match condition or object
selector added or changed, a validation removed or its expression changed, a builtin or its
parameters changed: each lets through what the base bundle stopped, and the webhook would
admit it from the next sync on. fedgate cannot tell in general whether a changed CEL
expression or parameter is looser, so a changed one counts as a weakening. Adding rules,
validations, kinds or operations, or raising an action, is not one. The world widened counts
too: a tenant given clusters, data scope, registries, namespaces, groups or quota (or removed),
a writer matching more identities, a ledger owner bound to another writer.

A weakening is acknowledged by an entry ``{rule: <id>, reason: <why>}`` that the change adds
to ``policies/weakenings.yaml`` (an entry the base already has acknowledges nothing: it was
for an earlier change). The reviewer sees the entry in the diff of the change itself, in every
review tool, whatever happens to commit messages (a squash merge rewrites them, and the
pre-commit stage runs before the message exists).

Pure: the files of both bundles in, the weakenings out. ``commands/check.py`` reads git.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from webhook.bundle.load import BUNDLE_FILES, OPTIONAL_FILES, build_bundle
from webhook.bundle.load_rules import RULE_FILES, build_rule
from webhook.bundle.model import DATA_KINDS, Bundle, Tenant, Writer
from webhook.bundle.rules import Match, Rule
from webhook.bundle.vap import VAP_DIRECTORY
from webhook.engine.enforcement import POINTS, weaker
from webhook.errors import BundleError, Finding
from webhook.schema import Checker
from webhook.yamlsource import YamlSyntaxError, parse_single

ACKNOWLEDGEMENTS = "weakenings.yaml"
"""The file of ``policies/`` where a change acknowledges the rules it weakens."""
SHORT = 70


@dataclass(frozen=True)
class Weakening:
    """A rule the change removes or weakens, how, and the reason given when acknowledged."""

    rule: str
    changes: tuple[str, ...]
    reason: str | None = None

    @property
    def acknowledged(self) -> bool:
        return self.reason is not None


def rules(files: Mapping[str, str], root: str) -> dict[str, Rule]:
    """The rules of a bundle's files (paths relative to it), by id; a rule that does not load
    is left out (loading the bundle reports it)."""
    folders = sorted(
        {p.split("/")[1] for p in files if p.startswith("rules/") and p.count("/") == 2}
    )
    found = {}
    for folder in folders:
        texts = [files.get(f"rules/{folder}/{name}") for name in RULE_FILES]
        if None in texts:
            continue
        try:
            documents = [
                parse_single(str(text), f"{root}/rules/{folder}/{name}")
                for text, name in zip(texts, RULE_FILES, strict=True)
            ]
        except YamlSyntaxError:
            continue
        rule, _ = build_rule(folder, f"{root}/rules/{folder}", documents[0], documents[1])
        if rule is not None:
            found[rule.id] = rule
    return found


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SHORT else flat[: SHORT - 3] + "..."


def _covered(kind: tuple[str, str], kinds: frozenset[tuple[str, str]]) -> bool:
    group, name = kind
    return bool({(group, name), ("*", name), (group, "*"), ("*", "*")} & kinds)


def _match_changes(old: Match, new: Match) -> list[str]:
    changes = [
        f"its match no longer covers {g or 'core'}/{k}"
        for g, k in sorted(old.kinds)
        if not _covered((g, k), new.kinds)
    ]
    changes += [
        f"its match no longer covers {op}" for op in sorted(old.operations - new.operations)
    ]
    changes += [
        f"its match no longer covers subresource {s or '(none)'}"
        for s in sorted(old.sub_resources - new.sub_resources)
    ]
    if old.scope == "any" and new.scope == "tenant":
        changes.append("its match moved from every namespace to tenants' namespaces only")
    if new.object_selector is not None and new.object_selector != old.object_selector:
        changes.append("its objectSelector was added or changed")
    return changes


def _lowered(old: Rule, new: Rule) -> list[str]:
    """The actions lowered: the rule's, or each enforcement point's where either binding sets
    them per point (a rule staged again at the webhook lets through what it denied there)."""
    if not old.scoped_actions and not new.scoped_actions:
        return [f"action {old.action} -> {new.action}"] if weaker(new.action, old.action) else []
    return [
        f"action at {point} {old.action_at(point)} -> {new.action_at(point)}"
        for point in POINTS
        if weaker(new.action_at(point), old.action_at(point))
    ]


def _changes(old: Rule, new: Rule) -> list[str]:
    """How ``new`` lets through what ``old`` stopped (empty: it does not, as far as told)."""
    changes = []
    changes += _lowered(old, new)
    if old.failure_policy == "Fail" and new.failure_policy == "Ignore":
        changes.append("failurePolicy Fail -> Ignore")
    if isinstance(old.match, Match) and isinstance(new.match, Match):
        changes += _match_changes(old.match, new.match)
    elif old.match != new.match:
        changes.append("its match changed")
    added = sorted(set(new.match_conditions) - set(old.match_conditions))
    changes += [f"match condition added or changed: {_short(c)}" for c in added]
    if old.builtin != new.builtin:
        changes.append(f"builtin {old.builtin} -> {new.builtin}")
    expressions = {v.expression for v in new.validations}
    changes += [
        f"validation removed or changed: {_short(v.expression)}"
        for v in old.validations
        if v.expression not in expressions
    ]
    if dict(old.params) != dict(new.params):
        keys = sorted(
            {*old.params, *new.params}
            - {k for k in old.params if old.params.get(k) == new.params.get(k)}
        )
        changes.append(
            f"params changed ({', '.join(map(str, keys))}); fedgate cannot tell they are not looser"
        )
    if old.variables != new.variables:
        changes.append("variables changed")
    return changes


def _vap_changes(base: Mapping[str, str], new: Mapping[str, str]) -> list[Weakening]:
    """ValidatingAdmissionPolicy files of the base removed or changed (compared as text)."""
    found = []
    for path in sorted(p for p in base if p.startswith(f"{VAP_DIRECTORY}/")):
        if path not in new:
            found.append(Weakening(path, ("removed",)))
        elif new[path] != base[path]:
            found.append(Weakening(path, ("changed; fedgate cannot tell it is not looser",)))
    return found


def _world(files: Mapping[str, str], root: str) -> Bundle | None:
    """The clusters, tenants and writers of a bundle's files; None when they do not load."""
    try:
        names = [*BUNDLE_FILES, *(n for n in OPTIONAL_FILES if n in files)]
        documents = {n: parse_single(files[n], f"{root}/{n}") for n in names}
        return build_bundle(documents, source=root)
    except (KeyError, YamlSyntaxError, BundleError):
        return None


def _names(values: Iterable[str]) -> str:
    return ", ".join(sorted(values))


def _more(old: Fraction | int | None, new: Fraction | int | None) -> bool:
    """A limit raised, or removed (None: unlimited)."""
    return old is not None and (new is None or new > old)


def _tenant_changes(old: Tenant, new: Tenant) -> list[str]:
    changes = []
    if new.clusters - old.clusters:
        changes.append(f"may now run on {_names(new.clusters - old.clusters)}")
    for kind in DATA_KINDS:
        wider = new.data_clusters(kind) - old.data_clusters(kind)
        if wider:
            changes.append(f"its {kind}s may now go to {_names(wider)}")
    if set(new.registries) - set(old.registries):
        changes.append(f"may now pull from {_names(set(new.registries) - set(old.registries))}")
    if set(new.namespaces) - set(old.namespaces):
        changes.append(f"now owns namespace {_names(set(new.namespaces) - set(old.namespaces))}")
    if set(new.groups) - set(old.groups):
        changes.append(f"now includes group {_names(set(new.groups) - set(old.groups))}")
    for what in ("cpu", "memory"):
        if _more(getattr(old.quota, what), getattr(new.quota, what)):
            changes.append(f"its {what} quota is raised or removed")
    if _more(old.max_replicas_per_app, new.max_replicas_per_app):
        changes.append("its maxReplicasPerApp is raised or removed")
    return changes


def _writer_changes(old: Writer, new: Writer) -> list[str]:
    added = [
        *(f"user {u}" for u in sorted(new.usernames - old.usernames)),
        *(f"prefix {p}" for p in sorted(set(new.username_prefixes) - set(old.username_prefixes))),
        *(f"group {g}" for g in sorted(new.groups - old.groups)),
    ]
    return [f"now matches {', '.join(added)}"] if added else []


def _world_weakenings(
    base: Mapping[str, str], new: Mapping[str, str], root: str
) -> list[Weakening]:
    """Tenants given more (clusters, data scope, registries, namespaces, people, quota) or
    removed (their namespaces leave every tenant rule), writers matching more identities,
    ledger owners bound to other writers: named ``tenant:<name>``, ``writer:<name>``,
    ``owner:<name>``."""
    old_world, new_world = _world(base, root), _world(new, root)
    if old_world is None or new_world is None:
        return []
    found = []
    for name, tenant in sorted(old_world.tenants.items()):
        now = new_world.tenants.get(name)
        changes = ["removed: its namespaces leave every tenant rule"] if now is None else []
        changes += _tenant_changes(tenant, now) if now is not None else []
        if changes:
            found.append(Weakening(f"tenant:{name}", tuple(changes)))
    for writer in old_world.writers:
        now_writer = new_world.writer(writer.name)
        changes = ["removed"] if now_writer is None else _writer_changes(writer, now_writer)
        if changes:
            found.append(Weakening(f"writer:{writer.name}", tuple(changes)))
    for owner, binding in sorted(old_world.owners.items()):
        if new_world.owners.get(owner) != binding:
            found.append(Weakening(f"owner:{owner}", ("its writer binding changed",)))
    if old_world.argocd is not None and new_world.argocd is not None:
        kinds = set(new_world.argocd.tenant_kinds) - set(old_world.argocd.tenant_kinds)
        if kinds:
            named = ", ".join(f"{g or 'core'}/{k}" for g, k in sorted(kinds))
            found.append(
                Weakening("argocd:tenantKinds", (f"tenants' AppProjects now permit {named}",))
            )
    return found


def weakenings(base: Mapping[str, str], new: Mapping[str, str], root: str) -> list[Weakening]:
    """Every rule of the base bundle's files that ``new`` removes or weakens, by rule id (a
    ValidatingAdmissionPolicy file by its path), then the tenants, writers and ledger owners
    it widens."""
    old_rules, new_rules = rules(base, root), rules(new, root)
    found = []
    for rule_id, old in sorted(old_rules.items()):
        if rule_id not in new_rules:
            found.append(
                Weakening(rule_id, (f"removed ({root}/rules/{rule_id}/ is gone or broken)",))
            )
            continue
        changes = _changes(old, new_rules[rule_id])
        if changes:
            found.append(Weakening(rule_id, tuple(changes)))
    return found + _vap_changes(base, new) + _world_weakenings(base, new, root)


def _entries(text: str | None, file: str) -> tuple[list[tuple[str, str]], list[Finding]]:
    """(rule, reason) of each entry of an acknowledgements file, and its problems."""
    if text is None:
        return [], []
    try:
        document = parse_single(text, file)
    except YamlSyntaxError as exc:
        return [], [exc.finding]
    if document.data is None:
        return [], []
    checker = Checker(document)
    entries = []
    if not isinstance(document.data, list):
        return [], [document.finding((), "a list of {rule, reason} entries")]
    for index in range(len(document.data)):
        checker.mapping((index,), ("rule", "reason"), required=("rule", "reason"))
        rule, reason = checker.string((index, "rule")), checker.string((index, "reason"))
        if rule and reason and reason.strip():
            entries.append((rule, reason.strip()))
        elif rule and reason is not None:
            checker.report((index, "reason"), "say why the rule is weakened")
    return entries, list(checker.findings)


def acknowledge(
    found: list[Weakening], base_text: str | None, new_text: str | None, file: str
) -> tuple[list[Weakening], list[Finding]]:
    """``found`` with the reason of each weakening the change acknowledges: an entry of
    ``new_text`` (the acknowledgements file) that ``base_text`` does not have."""
    old, _ = _entries(base_text, file)
    new, problems = _entries(new_text, file)
    added: dict[str, str] = {}
    for rule, reason in new:
        if (rule, reason) not in old:
            added.setdefault(rule, reason)
    acknowledged = [
        Weakening(w.rule, w.changes, added[w.rule]) if w.rule in added else w for w in found
    ]
    return acknowledged, problems

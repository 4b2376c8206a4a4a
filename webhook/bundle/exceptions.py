"""Exceptions: the platform team lifts named rules for a few objects, until a date.

One file per exception under ``policies/exceptions/<name>.yaml`` (the platform's directory; a
file claiming to be one anywhere else is refused by ``fedgate check``)::

    apiVersion: fedgate.dev/v1alpha1
    kind: PolicyException
    metadata: {name: legacy-billing-latest}
    spec:
      rules: [image-tag]
      match: {namespaces: [payments], kinds: [{apiGroups: [apps], kinds: [Deployment]}],
              names: [legacy-billing], objectSelector: {...}, clusters: [...], writers: [git]}
      reason: the vendor ships :latest only until their 4.0 release
      owner: payments-oncall@example.com
      expires: "2026-12-31"

An exception is in force on the days before ``expires``: from that day on it lifts nothing.
It can never lift a rule of ``PROTECTED`` (load refuses it, saying which and why).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from webhook.base.errors import Finding
from webhook.base.schema import DNS_LABEL, Checker
from webhook.base.values import is_mapping
from webhook.base.yamlsource import Document, YamlSyntaxError, parse_single
from webhook.bundle.model import PolicyException

EXCEPTIONS_DIRECTORY = "exceptions"
API_VERSION = "fedgate.dev/v1alpha1"
KIND = "PolicyException"
TENANT_WRITER = "tenant"
"""The writer name of a tenant's people in ``match.writers`` (any tenant: ``namespaces``
already says whose)."""

PROTECTED: tuple[tuple[str, str], ...] = (
    (
        "ownership.",
        "single-writer ownership keeps fedgate's ledger and Karmada's own fields (claims, "
        "bindings, Works, status, what each Karmada component writes) with their one writer; "
        "lifted, two writers fight over a field or a tenant rewrites what the rules read",
    ),
    (
        "retain.",
        "a member-owned field (replicas under member HPAs) is never written from the "
        "federation; lifted, Karmada overwrites what the members' autoscalers set",
    ),
    (
        "tenancy.namespace-writer",
        "who may write in a tenant's namespace: lifted, another team or an unknown writer "
        "writes there (lock-out and takeover protection)",
    ),
    (
        "tenancy.platform-namespace",
        "the platform's namespaces (fedgate's own bundle and webhook among them) are written "
        "by git, Karmada and the platform only: lifted, a tenant could rewrite the bundle "
        "that holds the exceptions",
    ),
    (
        "tenancy.cluster-policy",
        "cluster-wide policies reach every namespace: a side door around each tenant's scope",
    ),
    (
        "tenancy.takeover",
        "a policy written outside Git taking over Git's template: a side door around Git",
    ),
    (
        "tenancy.selector-reach",
        "a selector that reaches objects it does not name: a side door to other templates",
    ),
    (
        "overrides.member-copies",
        "judges an override by what members will run: lifted, an override carries past "
        "every other rule what its template could not",
    ),
    (
        "tenancy.data-scope",
        "data residency (Secrets, ConfigMaps, PVCs only where the tenant's data may go) is a "
        "compliance boundary, not a rollout step",
    ),
    (
        "tenancy.propagate-deps",
        "propagateDeps ships every referenced Secret and ConfigMap along: the data-scope "
        "boundary by another door",
    ),
)
"""Rules no exception may lift, each with why: (rule id, or a family prefix ending in '.')."""

_TOP_KEYS = ("apiVersion", "kind", "metadata", "spec")
_SPEC_KEYS = ("rules", "match", "reason", "owner", "expires")
_MATCH_KEYS = ("namespaces", "kinds", "names", "objectSelector", "clusters", "writers")


def protected_reason(rule: str) -> str | None:
    """Why no exception may lift ``rule``; None when one may."""
    for name, why in PROTECTED:
        if rule == name or (name.endswith(".") and rule.startswith(name)):
            return why
    return None


@dataclass(frozen=True)
class Known:
    """What an exception may name: the bundle's rules, clusters and writers."""

    rules: frozenset[str]
    clusters: frozenset[str]
    writers: frozenset[str]


def load_exceptions(
    files: Mapping[str, str], display: Mapping[str, str], known: Known | None
) -> tuple[tuple[PolicyException, ...], list[Finding]]:
    """Every exception of ``files`` (``exceptions/<name>.yaml`` -> text; ``display`` names
    each in messages), by name; and every finding of every file. ``known`` None: the rules,
    clusters and writers they name are not checked (to read their dates alone)."""
    out: list[PolicyException] = []
    findings: list[Finding] = []
    for relative in sorted(files):
        try:
            document = parse_single(files[relative], display[relative])
        except YamlSyntaxError as exc:
            findings.append(exc.finding)
            continue
        stem = relative.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        exception, problems = build_exception(document, stem, known)
        findings += problems
        if exception is not None:
            out.append(exception)
    return tuple(sorted(out, key=lambda e: e.name)), findings


def claims_exception(data: Any) -> bool:
    """Whether a parsed document says it is a fedgate exception (its apiVersion and kind)."""
    return is_mapping(data) and data.get("apiVersion") == API_VERSION and data.get("kind") == KIND


def build_exception(
    document: Document, stem: str, known: Known | None
) -> tuple[PolicyException | None, list[Finding]]:
    """The exception of one document (named as its file, ``stem``), or None and why not."""
    check = Checker(document)
    check.mapping((), _TOP_KEYS, required=("apiVersion", "kind", "metadata", "spec"))
    if check.get(("apiVersion",)) not in (None, API_VERSION):
        check.report(("apiVersion",), f"must be {API_VERSION}")
    if check.get(("kind",)) not in (None, KIND):
        check.report(("kind",), f"must be {KIND}")
    check.mapping(("metadata",), ("name", "labels", "annotations"), required=("name",))
    name = check.name(("metadata", "name"))
    if name is not None and name != stem:
        check.report(("metadata", "name"), f"must equal the file name {stem!r}")
    check.mapping(("spec",), _SPEC_KEYS, required=_SPEC_KEYS)
    rules = _rules(check, known)
    expires = _expires(check)
    match = _match(check, known)
    reason = check.string(("spec", "reason"))
    owner = check.string(("spec", "owner"))
    if check.findings or None in (name, expires, match, reason, owner) or not rules:
        return None, check.findings
    assert name is not None and expires is not None and match is not None  # for mypy
    return PolicyException(
        name=name,
        rules=rules,
        expires=expires,
        reason=reason or "",
        owner=owner or "",
        source=f"{document.file}:{document.line(())}",
        **match,
    ), []


def _rules(check: Checker, known: Known | None) -> frozenset[str]:
    path = ("spec", "rules")
    rules = check.string_list(path)
    if check.get(path) is not None and not rules:
        check.report(path, "must name at least one rule")
    for index, rule in enumerate(rules):
        why = protected_reason(rule)
        if why is not None:
            check.report((*path, index), f"{rule} can never be lifted by an exception: {why}")
        elif known is not None and rule not in known.rules:
            check.report((*path, index), f"no rule {rule!r} in the bundle")
    return frozenset(rules)


def _expires(check: Checker) -> date | None:
    path = ("spec", "expires")
    text = check.get(path)
    if text is None:
        return None
    try:
        return date.fromisoformat(str(text))
    except ValueError:
        check.report(path, f"{text!r} is not a date: write YYYY-MM-DD (quoted or not)")
        return None


def _match(check: Checker, known: Known | None) -> dict[str, Any] | None:
    path: tuple[str | int, ...] = ("spec", "match")
    check.mapping(path, _MATCH_KEYS, required=("namespaces",))
    namespaces = frozenset(
        check.string_list(
            (*path, "namespaces"), item=DNS_LABEL, hint="a namespace name, without wildcards"
        )
    )
    if check.get((*path, "namespaces")) is not None and not namespaces:
        check.report((*path, "namespaces"), "must name at least one namespace")
    clusters = _known(check, (*path, "clusters"), known.clusters if known else None, "cluster")
    writers = known.writers | {TENANT_WRITER} if known else None
    writers = _known(check, (*path, "writers"), writers, "writer")
    kinds: set[tuple[str, str]] = set()
    raw = check.get((*path, "kinds"))
    if raw is not None and not isinstance(raw, list):
        check.report((*path, "kinds"), "must be a list of {apiGroups, kinds}")
    for index in range(len(raw) if isinstance(raw, list) else 0):
        entry = (*path, "kinds", index)
        check.mapping(entry, ("apiGroups", "kinds"), required=("apiGroups", "kinds"))
        groups = check.string_list((*entry, "apiGroups"), empty=True)
        kinds.update((g, k) for g in groups for k in check.string_list((*entry, "kinds")))
    selector = check.get((*path, "objectSelector"))
    if selector is not None:
        check.mapping((*path, "objectSelector"), ("matchLabels", "matchExpressions"))
        check.string_map((*path, "objectSelector", "matchLabels"), labels=True)
    if check.findings:
        return None
    return {
        "namespaces": namespaces,
        "kinds": frozenset(kinds),
        "names": frozenset(check.string_list((*path, "names"))),
        "object_selector": selector if isinstance(selector, dict) else None,
        "clusters": clusters,
        "writers": writers,
    }


def _known(
    check: Checker, path: tuple[str | int, ...], known: frozenset[str] | None, what: str
) -> frozenset[str]:
    names = check.string_list(path)
    for index, name in enumerate(names):
        if known is not None and name not in known:
            check.report(
                (*path, index),
                f"no {what} {name!r} in the bundle; there are {', '.join(sorted(known))}",
            )
    return frozenset(names)

"""Read ``policies/rules/<id>/{rule,binding}.yaml`` into Rules and compile their CEL, once.

Every error of every rule is reported with file, line and path
(``policies/rules/registry-allowed/rule.yaml:7: validations[1].expression: ...``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from webhook.bundle.source import BundleSource

from webhook.base.errors import Finding
from webhook.base.schema import Checker
from webhook.base.yamlsource import Document, YamlSyntaxError, parse_single
from webhook.bundle.load_actions import binding_actions
from webhook.bundle.rules import FailurePolicy, Match, Rule, Scope, Validation
from webhook.engine.builtins import BUILTINS
from webhook.engine.cel import Backend
from webhook.engine.cel.values import problems
from webhook.engine.celruntime import CompiledRule, compile_rule, load_warnings

RULE_KEYS = ("id", "description", "builtin", "matchConditions", "validations")
BINDING_KEYS = ("action", "scopedEnforcementActions", "failurePolicy", "match", "params")
MATCH_KEYS = ("kinds", "operations", "subResources", "scope", "objectSelector")
OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")
RULE_FILES = ("rule.yaml", "binding.yaml")


def load_rules(
    source: BundleSource, backend: Backend, warnings: list[Finding] | None = None
) -> tuple[tuple[Rule, ...], dict[str, CompiledRule], list[Finding]]:
    """Every rule of the source (sorted by id), compiled; and every finding. ``warnings``
    receives what the backend warns of an expression that compiles (``load_warnings``)."""
    rules, compiled, findings = [], {}, []
    for folder in source.rule_folders:
        documents: dict[str, Document] = {}
        for name in RULE_FILES:
            relative = f"rules/{folder}/{name}"
            if relative not in source.files:
                findings.append(
                    Finding(
                        source.display(relative), 0, "", f"missing: each rule folder needs {name}"
                    )
                )
                continue
            try:
                documents[name] = parse_single(source.files[relative], source.display(relative))
            except YamlSyntaxError as exc:
                findings.append(exc.finding)
        if len(documents) < len(RULE_FILES):
            continue
        rule, rule_findings = build_rule(
            folder,
            source.display(f"rules/{folder}"),
            documents["rule.yaml"],
            documents["binding.yaml"],
        )
        findings += rule_findings
        if rule is None:
            continue
        if rule.builtin is None:
            program, errors = compile_rule(rule, backend)
            findings += [
                documents["rule.yaml"].finding(field_path(where), message)
                for where, message in errors
            ]
            if program is None:
                continue
            compiled[rule.id] = program
            if warnings is not None:
                warnings += [
                    documents["rule.yaml"].finding(field_path(where), message)
                    for where, message in load_warnings(rule, backend)
                ]
        rules.append(rule)
    return tuple(sorted(rules, key=lambda r: r.id)), compiled, findings


def field_path(where: str) -> tuple[str | int, ...]:
    """``validations[1].expression`` -> ("validations", 1, "expression")."""
    out: list[str | int] = []
    for part in where.split("."):
        name, _, index = part.partition("[")
        out.append(name)
        if index:
            out.append(int(index.rstrip("]")))
    return tuple(out)


def build_rule(
    folder: str, where: str, rule_doc: Document, binding_doc: Document
) -> tuple[Rule | None, list[Finding]]:
    rule, binding = Checker(rule_doc), Checker(binding_doc)
    rule.mapping((), RULE_KEYS, required=("id", "description"))
    binding.mapping((), BINDING_KEYS, required=("action",))
    rule_id = rule.string(("id",))
    if rule_id is not None and rule_id != folder:
        rule.report(("id",), f"must equal the folder name {folder!r}")
    builtin = rule.string(("builtin",))
    action, scoped_actions = binding_actions(binding)
    failure = cast(
        FailurePolicy, binding.choice(("failurePolicy",), ("Fail", "Ignore"), default="Fail")
    )
    params = binding.get(("params",)) or {}
    if not isinstance(params, dict):
        binding.report(("params",), "must be a mapping")
    for field, why in problems(params, "params"):
        binding.report(("params",), f"{field} {why}")
    if builtin is not None:
        match = _builtin_match(rule, binding, builtin)
        validations: tuple[Validation, ...] = ()
        conditions: tuple[str, ...] = ()
    else:
        match = _match(binding)
        validations = _validations(rule)
        conditions = rule.string_list(("matchConditions",), unique=False)
    findings = rule.findings + binding.findings
    if findings or rule_id is None or match is None:
        return None, findings
    return Rule(
        id=rule_id,
        description=rule.string(("description",)) or "",
        action=action,
        scoped_actions=scoped_actions,
        match=match,
        failure_policy=failure,
        builtin=builtin,
        validations=validations,
        match_conditions=conditions,
        params=params if isinstance(params, dict) else {},
        folder=where,
    ), []


def _builtin_match(rule: Checker, binding: Checker, builtin: str) -> Match | None:
    if builtin not in BUILTINS:
        rule.report(
            ("builtin",),
            f"unknown built-in rule {builtin!r}; there are {', '.join(sorted(BUILTINS))}",
        )
        return None
    if rule.get(("id",)) != builtin:
        rule.report(("id",), f"a built-in rule keeps its id: {builtin}")
    for key in ("validations", "matchConditions"):
        if rule.get((key,)) is not None:
            rule.report((key,), "a built-in rule has no CEL")
    if binding.get(("match",)) is not None:
        binding.report(("match",), "a built-in rule matches what it checks; remove match")
    return BUILTINS[builtin][1]


def _match(binding: Checker) -> Match | None:
    path: tuple[str | int, ...] = ("match",)
    if binding.get(path) is None:
        binding.report((), "match is required for a CEL rule")
        return None
    binding.mapping(path, MATCH_KEYS, required=("kinds",))
    kinds: set[tuple[str, str]] = set()
    raw_kinds = binding.get((*path, "kinds"))
    for index in range(len(raw_kinds) if isinstance(raw_kinds, list) else 0):
        entry = (*path, "kinds", index)
        binding.mapping(entry, ("apiGroups", "kinds"), required=("apiGroups", "kinds"))
        raw_groups = binding.get((*entry, "apiGroups"))
        if not isinstance(raw_groups, list) or not all(isinstance(g, str) for g in raw_groups):
            binding.report((*entry, "apiGroups"), 'must be a list of API groups ("" is core)')
            continue
        groups = tuple(raw_groups)
        names = binding.string_list((*entry, "kinds"))
        kinds.update((g, k) for g in groups for k in names)
    operations = binding.string_list((*path, "operations")) or ("CREATE", "UPDATE")
    for index, operation in enumerate(operations):
        if operation not in OPERATIONS:
            binding.report((*path, "operations", index), f"must be one of {', '.join(OPERATIONS)}")
    sub_resources = _sub_resources(binding.get((*path, "subResources")))
    scope = cast(Scope, binding.choice((*path, "scope"), ("tenant", "any"), default="tenant"))
    if not kinds:
        binding.report((*path, "kinds"), "must list at least one {apiGroups, kinds}")
        return None
    selector = binding.get((*path, "objectSelector"))
    if selector is not None:
        reported = len(binding.findings)
        binding.mapping((*path, "objectSelector"), ("matchLabels", "matchExpressions"))
        binding.string_map((*path, "objectSelector", "matchLabels"), labels=True)
        if len(binding.findings) == reported:  # else said already, at the very key
            selector = binding.label_selector((*path, "objectSelector"))
    return Match(
        frozenset(kinds),
        frozenset(operations),
        sub_resources,
        scope,
        selector if isinstance(selector, dict) else None,
    )


def _sub_resources(raw: Any) -> frozenset[str]:
    if not isinstance(raw, list):
        return frozenset({""})
    return frozenset(str(s) for s in raw)


def _validations(rule: Checker) -> tuple[Validation, ...]:
    raw = rule.get(("validations",))
    if not isinstance(raw, list) or not raw:
        rule.report(
            ("validations",) if raw is not None else (),
            "a CEL rule needs validations (a non-empty list)",
        )
        return ()
    out = []
    for index in range(len(raw)):
        path = ("validations", index)
        rule.mapping(
            path, ("expression", "message", "messageExpression"), required=("expression", "message")
        )
        expression = rule.string((*path, "expression"))
        message = rule.string((*path, "message"))
        if expression and message:
            out.append(Validation(expression, message, rule.string((*path, "messageExpression"))))
    return tuple(out)

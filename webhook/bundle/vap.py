"""ValidatingAdmissionPolicies and their bindings, as a platform team already has them.

``policies/vaps/`` holds any number of YAML files, each any number of documents:
``admissionregistration.k8s.io/v1`` ``ValidatingAdmissionPolicy`` and
``ValidatingAdmissionPolicyBinding`` objects as they are, and the objects they refer to
(the params of a ``paramKind``, Namespaces a ``namespaceSelector`` reads); and Gatekeeper's
CEL ConstraintTemplates and Constraints, read as the VAPs Gatekeeper makes of them
(``bundle.gatekeeper``). Each binding of a
policy becomes one rule, ``<policy>/<binding>``, evaluated as the API server evaluates it:
``matchConstraints`` and the binding's ``matchResources`` (resource rules, exclusions,
namespace and object selectors, resource names), ``matchConditions``, ``variables``,
``validations`` (``message``, ``messageExpression``, ``reason``), ``failurePolicy``,
``validationActions`` and params from ``paramRef`` (by name or selector, in the request's
namespace when the binding names none, ``parameterNotFoundAction``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from webhook.base.errors import Finding
from webhook.base.labels import labels_match
from webhook.base.schema import Checker
from webhook.base.values import is_mapping
from webhook.base.yamlsource import Document, YamlSyntaxError, parse_documents
from webhook.bundle import gatekeeper
from webhook.bundle.load_rules import field_path
from webhook.bundle.rules import FailurePolicy, Rule, Validation
from webhook.engine.cel import Backend
from webhook.engine.celruntime import CompiledRule, compile_rule, load_warnings
from webhook.engine.decision import Action
from webhook.engine.request import AdmissionRequest

if TYPE_CHECKING:
    from webhook.bundle.source import BundleSource

VAP_DIRECTORY = "vaps"
GROUP = "admissionregistration.k8s.io"
API_VERSIONS = (f"{GROUP}/v1", f"{GROUP}/v1beta1")
POLICY, BINDING = "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"
OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT", "*")
ACTIONS: dict[str, Action] = {"Deny": "deny", "Warn": "warn", "Audit": "audit"}
REASONS = ("Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge")


# ---- matching, as the API server matches (admission/plugin/policy/matching)


@dataclass(frozen=True)
class ResourceRule:
    """One ``NamedRuleWithOperations``."""

    groups: frozenset[str]
    versions: frozenset[str]
    resources: frozenset[str]
    operations: frozenset[str]
    scope: str = "*"
    names: frozenset[str] = frozenset()

    def matches(self, request: AdmissionRequest, *, equivalent: bool) -> bool:
        resource = request.raw.get("resource") or {}
        group, version = resource.get("group", ""), resource.get("version", "")
        if not ({"*", request.operation} & self.operations):
            return False
        if not ({"*", group} & self.groups):
            return False
        if not equivalent and not ({"*", version} & self.versions):
            return False
        if not _resource_matches(self.resources, request.resource, request.sub_resource):
            return False
        if self.scope == "Cluster" and request.namespace:
            return False
        if self.scope == "Namespaced" and not request.namespace:
            return False
        return not self.names or request.name in self.names


def _resource_matches(patterns: frozenset[str], resource: str, sub: str) -> bool:
    """``resources`` as Kubernetes reads them: ``*`` every resource (no subresource), ``*/*``
    everything, ``deployments/*`` a resource and its subresources, ``*/scale`` a subresource
    of any resource."""
    full = f"{resource}/{sub}" if sub else resource
    for pattern in patterns:
        if pattern in ("*/*", full) or (pattern == "*" and not sub):
            return True
        head, _, tail = pattern.partition("/")
        if tail == "*" and head == resource:
            return True
        if head == "*" and tail and tail == sub:
            return True
    return False


@dataclass(frozen=True)
class Resources:
    """A ``MatchResources``: what a policy's ``matchConstraints`` or a binding's
    ``matchResources`` select."""

    rules: tuple[ResourceRule, ...] = ()
    excluded: tuple[ResourceRule, ...] = ()
    namespace_selector: Mapping[str, Any] | None = None
    object_selector: Mapping[str, Any] | None = None
    equivalent: bool = True

    def selects(self, request: AdmissionRequest, namespaces: Mapping[str, Any]) -> bool:
        """No resource rules select everything (a binding's ``matchResources`` may have none:
        the policy's then decide, as the API server's matcher)."""
        if self.rules and not any(
            r.matches(request, equivalent=self.equivalent) for r in self.rules
        ):
            return False
        if any(r.matches(request, equivalent=self.equivalent) for r in self.excluded):
            return False
        return self._namespace(request, namespaces) and self._object(request)

    def _namespace(self, request: AdmissionRequest, namespaces: Mapping[str, Any]) -> bool:
        """A cluster-scoped object is never skipped; a Namespace is matched on its own labels;
        otherwise the labels of the Namespace object the bundle holds (none: no labels)."""
        if not self.namespace_selector:
            return True
        if request.kind.kind == "Namespace" and not request.kind.group:
            labels = _labels(request.current)
        elif not request.namespace:
            return True
        else:
            labels = _labels(namespaces.get(request.namespace))
        return labels_match(self.namespace_selector, labels)

    def _object(self, request: AdmissionRequest) -> bool:
        """Either the object or the old object matches (as the API server's)."""
        if not self.object_selector:
            return True
        return any(
            labels_match(self.object_selector, _labels(obj))
            for obj in (request.object, request.old_object)
            if obj is not None
        )


def _labels(obj: Any) -> Mapping[str, Any]:
    metadata = obj.get("metadata") if is_mapping(obj) else None
    labels = metadata.get("labels") if is_mapping(metadata) else None
    return labels if is_mapping(labels) else {}


@dataclass(frozen=True)
class ResourceMatch:
    """A policy's ``matchConstraints`` and its binding's ``matchResources``: both must
    select the request. Decided per request (``selects``); ``applies`` only checks the
    operation, for the bundle's index."""

    policy: Resources
    binding: Resources | None
    namespaces: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    kinds: frozenset[tuple[str, str]] = frozenset({("*", "*")})

    def applies(
        self, group: str, kind: str, operation: str, sub_resource: str, in_tenant_namespace: bool
    ) -> bool:
        return any({"*", operation} & r.operations for r in self.policy.rules)

    def selects(self, request: AdmissionRequest) -> bool:
        return self.policy.selects(request, self.namespaces) and (
            self.binding is None or self.binding.selects(request, self.namespaces)
        )


# ---- params


@dataclass(frozen=True)
class ParamRef:
    """A binding's ``paramRef`` over the bundle's objects of the policy's ``paramKind``."""

    candidates: tuple[Mapping[str, Any], ...]
    name: str | None = None
    namespace: str | None = None
    selector: Mapping[str, Any] | None = None
    deny_when_missing: bool = True
    namespaced: bool = True

    def resolve(self, request: AdmissionRequest) -> list[Mapping[str, Any]] | None:
        namespace = self.namespace
        if namespace is None and self.namespaced:
            namespace = request.namespace  # the API server: the request's own namespace
        found = [
            obj
            for obj in self.candidates
            if (namespace is None or _metadata(obj, "namespace") == namespace)
            and (self.name is None or _metadata(obj, "name") == self.name)
            and (self.selector is None or labels_match(self.selector, _labels(obj)))
        ]
        if found:
            return found
        return None if self.deny_when_missing else []


def _metadata(obj: Mapping[str, Any], key: str) -> Any:
    metadata = obj.get("metadata")
    return metadata.get(key) if is_mapping(metadata) else None


# ---- loading


@dataclass
class _Parsed:
    """The ValidatingAdmissionPolicy files of a bundle, parsed, and what was wrong with them."""

    policies: dict[str, tuple[Document, Checker]] = field(default_factory=dict)
    bindings: list[tuple[Document, Checker]] = field(default_factory=list)
    objects: list[Mapping[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def load_vaps(
    source: BundleSource, backend: Backend, warnings: list[Finding] | None = None
) -> tuple[tuple[Rule, ...], dict[str, CompiledRule], list[Finding], dict[str, Any]]:
    """Every binding's rule (sorted by id), compiled; every finding; and the Namespace objects
    the files hold, by name (what ``namespaceObject`` and namespace selectors read).
    ``warnings`` receives what the backend warns of an expression (``load_warnings``)."""
    parsed = _parse(source)
    namespaces = {
        str(_metadata(obj, "name")): obj
        for obj in parsed.objects
        if obj.get("apiVersion") == "v1" and obj.get("kind") == "Namespace"
    }
    rules: list[Rule] = []
    compiled: dict[str, CompiledRule] = {}
    findings = parsed.findings
    for document, binding in parsed.bindings:
        policy_name = binding.string(("spec", "policyName"))
        if policy_name is None:
            binding.report(("spec", "policyName"), "required")
            findings += binding.findings
            continue
        if policy_name not in parsed.policies:
            binding.report(
                ("spec", "policyName"),
                f"no ValidatingAdmissionPolicy {policy_name!r} in {VAP_DIRECTORY}/",
            )
            findings += binding.findings
            continue
        policy_document, policy = parsed.policies[policy_name]
        rule = _rule(
            policy_document,
            policy,
            document,
            binding,
            objects=parsed.objects,
            namespaces=namespaces,
        )
        findings += binding.findings
        if rule is None:
            continue
        program, errors = compile_rule(rule, backend)
        findings += [policy_document.finding(("spec", *field_path(w)), m) for w, m in errors]
        if program is not None:
            compiled[rule.id] = program
            rules.append(rule)
            if warnings is not None:
                warnings += [
                    policy_document.finding(("spec", *field_path(w)), m)
                    for w, m in load_warnings(rule, backend)
                ]
    findings += [f for _, checker in parsed.policies.values() for f in checker.findings]
    return tuple(sorted(rules, key=lambda r: r.id)), compiled, findings, namespaces


def _parse(source: BundleSource) -> _Parsed:
    parsed = _Parsed()
    for relative in source.vap_files:
        try:
            documents = parse_documents(source.files[relative], source.display(relative))
        except YamlSyntaxError as exc:
            parsed.findings.append(exc.finding)
            continue
        for document in documents:
            data = document.data
            if not isinstance(data, dict):
                parsed.findings.append(document.finding((), "must be a Kubernetes object"))
                continue
            if gatekeeper.is_template(data):
                made = gatekeeper.template_policy(document)
                if isinstance(made, str):
                    parsed.findings.append(document.finding(("spec", "targets"), made))
                    continue
                document, data = made, made.data  # noqa: PLW2901 - read as the VAP it makes
            elif gatekeeper.is_constraint(data):
                parsed.objects.append(data)  # the params of its binding
                document = gatekeeper.constraint_binding(document)  # noqa: PLW2901
                data = document.data
            kind, version = data.get("kind"), data.get("apiVersion")
            if version in API_VERSIONS and kind == POLICY:
                checker = Checker(document)
                name = checker.name(("metadata", "name"))
                if name is not None and name in parsed.policies:
                    checker.report(("metadata", "name"), f"policy {name!r} is defined twice")
                elif name is not None:
                    parsed.policies[name] = (document, checker)
                parsed.findings += checker.findings if name is None else []
            elif version in API_VERSIONS and kind == BINDING:
                parsed.bindings.append((document, Checker(document)))
            else:
                parsed.objects.append(data)
    return parsed


def _rule(
    policy_document: Document,
    policy: Checker,
    document: Document,
    binding: Checker,
    *,
    objects: list[Mapping[str, Any]],
    namespaces: Mapping[str, Any],
) -> Rule | None:
    spec: tuple[str | int, ...] = ("spec",)
    policy_name = policy.string(("metadata", "name")) or ""
    binding_name = binding.name(("metadata", "name")) or ""
    _refuse_unsupported(policy)
    constraints = _resources(policy, (*spec, "matchConstraints"), required=True)
    match_resources = (
        _resources(binding, (*spec, "matchResources"), required=False)
        if binding.get((*spec, "matchResources")) is not None
        else None
    )
    actions = binding.string_list((*spec, "validationActions"))
    for index, action in enumerate(actions):
        if action not in ACTIONS:
            binding.report((*spec, "validationActions", index), "must be Deny, Warn or Audit")
    if not actions:
        binding.report((*spec, "validationActions"), "required: Deny, Warn and/or Audit")
    if "Deny" in actions and "Warn" in actions:
        binding.report((*spec, "validationActions"), "Deny and Warn may not be combined")
    failure = policy.choice((*spec, "failurePolicy"), ("Fail", "Ignore"), default="Fail")
    params = _params(policy, binding, objects)
    rule = Rule(
        id=f"{policy_name}/{binding_name}",
        description=f"ValidatingAdmissionPolicy {policy_name} bound by {binding_name}",
        action=next((ACTIONS[a] for a in ("Deny", "Warn", "Audit") if a in actions), "deny"),
        match=ResourceMatch(constraints, match_resources, namespaces),
        failure_policy=cast(FailurePolicy, failure),
        validations=_validations(policy),
        match_conditions=_named_expressions(policy, "matchConditions", "expression"),
        variables=tuple(
            zip(
                _names(policy, "variables"),
                _named_expressions(policy, "variables", "expression"),
                strict=True,
            )
        ),
        audit_annotations=tuple(
            zip(
                _keys(policy),
                _named_expressions(policy, "auditAnnotations", "valueExpression", key="key"),
                strict=True,
            )
        ),
        param_source=params,
        folder=document.file,
        source={"policy": policy_document.data, "binding": document.data},
    )
    if not rule.validations and not rule.audit_annotations:
        policy.report(spec, "a policy needs validations or auditAnnotations")
    return None if policy.findings or binding.findings else rule


_POLICY_SPEC = (
    "paramKind",
    "matchConstraints",
    "validations",
    "failurePolicy",
    "auditAnnotations",
    "matchConditions",
    "variables",
)


def _refuse_unsupported(policy: Checker) -> None:
    policy.mapping(("spec",), _POLICY_SPEC, required=("matchConstraints",))
    for index, item in enumerate(policy.get(("spec", "validations")) or ()):
        text = str(item.get("expression", "")) if isinstance(item, dict) else ""
        if "authorizer" in text:
            policy.report(
                ("spec", "validations", index, "expression"),
                "authorizer is not available outside the API server (fedgate reviews offline)",
            )


_RULE_KEYS = ("apiGroups", "apiVersions", "resources", "operations", "scope", "resourceNames")


def _resources(checker: Checker, path: tuple[str | int, ...], *, required: bool) -> Resources:
    checker.mapping(
        path,
        (
            "resourceRules",
            "excludeResourceRules",
            "namespaceSelector",
            "objectSelector",
            "matchPolicy",
        ),
        required=("resourceRules",) if required else (),
    )
    policy = checker.choice((*path, "matchPolicy"), ("Equivalent", "Exact"), default="Equivalent")
    return Resources(
        rules=_resource_rules(checker, (*path, "resourceRules")),
        excluded=_resource_rules(checker, (*path, "excludeResourceRules")),
        namespace_selector=checker.label_selector((*path, "namespaceSelector")) or None,
        object_selector=checker.label_selector((*path, "objectSelector")) or None,
        equivalent=policy == "Equivalent",
    )


def _resource_rules(checker: Checker, path: tuple[str | int, ...]) -> tuple[ResourceRule, ...]:
    raw = checker.get(path)
    found = []
    for index in range(len(raw) if isinstance(raw, list) else 0):
        here = (*path, index)
        checker.mapping(here, _RULE_KEYS)
        operations = checker.string_list((*here, "operations")) or ("*",)
        for at, operation in enumerate(operations):
            if operation not in OPERATIONS:
                checker.report((*here, "operations", at), f"must be one of {', '.join(OPERATIONS)}")
        found.append(
            ResourceRule(
                groups=frozenset(checker.string_list((*here, "apiGroups"), empty=True)),
                versions=frozenset(checker.string_list((*here, "apiVersions"))),
                resources=frozenset(checker.string_list((*here, "resources"))),
                operations=frozenset(operations),
                scope=checker.choice((*here, "scope"), ("*", "Cluster", "Namespaced"), default="*")
                or "*",
                names=frozenset(checker.string_list((*here, "resourceNames"))),
            )
        )
    return tuple(found)


def _validations(policy: Checker) -> tuple[Validation, ...]:
    raw = policy.get(("spec", "validations")) or []
    found = []
    for index in range(len(raw) if isinstance(raw, list) else 0):
        path = ("spec", "validations", index)
        policy.mapping(
            path, ("expression", "message", "messageExpression", "reason"), required=("expression",)
        )
        expression = policy.string((*path, "expression"))
        reason = policy.choice((*path, "reason"), REASONS, default="Invalid")
        if expression is None:
            continue
        message = policy.string((*path, "message")) or f"failed expression: {expression.strip()}"
        found.append(
            Validation(expression, message, policy.string((*path, "messageExpression")), reason)
        )
    return tuple(found)


def _named_expressions(
    policy: Checker, section: str, field_name: str, *, key: str = "name"
) -> tuple[str, ...]:
    raw = policy.get(("spec", section)) or []
    found = []
    for index in range(len(raw) if isinstance(raw, list) else 0):
        path = ("spec", section, index)
        policy.mapping(path, (key, field_name), required=(key, field_name))
        found.append(policy.string((*path, field_name)) or "false")
    return tuple(found)


def _names(policy: Checker, section: str) -> tuple[str, ...]:
    raw = policy.get(("spec", section)) or []
    return tuple(
        str(item.get("name", "")) if isinstance(item, dict) else ""
        for item in (raw if isinstance(raw, list) else ())
    )


def _keys(policy: Checker) -> tuple[str, ...]:
    raw = policy.get(("spec", "auditAnnotations")) or []
    return tuple(
        str(item.get("key", "")) if isinstance(item, dict) else ""
        for item in (raw if isinstance(raw, list) else ())
    )


def _params(policy: Checker, binding: Checker, objects: list[Mapping[str, Any]]) -> ParamRef | None:
    kind_path: tuple[str | int, ...] = ("spec", "paramKind")
    ref_path: tuple[str | int, ...] = ("spec", "paramRef")
    if policy.get(kind_path) is None:
        if binding.get(ref_path) is not None:
            binding.report(ref_path, "the policy has no paramKind")
        return None
    policy.mapping(kind_path, ("apiVersion", "kind"), required=("apiVersion", "kind"))
    api_version, kind = (
        policy.string((*kind_path, "apiVersion")),
        policy.string((*kind_path, "kind")),
    )
    if binding.get(ref_path) is None:
        binding.report(ref_path, "the policy has a paramKind: the binding needs a paramRef")
        return None
    binding.mapping(
        ref_path,
        ("name", "namespace", "selector", "parameterNotFoundAction"),
        required=("parameterNotFoundAction",),
    )
    name = binding.string((*ref_path, "name"))
    selector = binding.get((*ref_path, "selector"))
    if selector is not None:
        selector = binding.label_selector((*ref_path, "selector")) or {}
    if (name is None) == (selector is None):
        binding.report(ref_path, "give exactly one of name or selector")
    action = binding.choice(
        (*ref_path, "parameterNotFoundAction"), ("Allow", "Deny"), default="Deny"
    )
    candidates = tuple(
        obj for obj in objects if obj.get("apiVersion") == api_version and obj.get("kind") == kind
    )
    return ParamRef(
        candidates=candidates,
        name=name,
        namespace=binding.string((*ref_path, "namespace")),
        selector=selector if isinstance(selector, dict) else None,
        deny_when_missing=action == "Deny",
        namespaced=any(_metadata(obj, "namespace") for obj in candidates) or not candidates,
    )

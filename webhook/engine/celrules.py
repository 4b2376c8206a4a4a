"""Evaluating CEL rules on a request: one activation per request, over what the bundle compiled
once at load (``celruntime.py``).

The variables are those of a ValidatingAdmissionPolicy (``object``, ``oldObject``, ``request``,
``params``, ``namespaceObject`` which is always null here) plus ``tenant`` (the tenant owning
the namespace, an empty map elsewhere), ``clusters`` (the inventory by name) and ``cluster``
(the member cluster a per-cluster copy is bound for in ``fedgate plan``; empty at admission). Every
expression result is checked: ``true`` passes, ``false`` fails, anything else, or an error, is
a violation with status ``error`` which fails closed under ``failurePolicy: Fail``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from webhook.bundle.model import Bundle, Tenant
from webhook.bundle.rules import Rule
from webhook.engine.cel import Backend, CelEvalError
from webhook.engine.cel.cost import MATCH_CONDITIONS_BUDGET, policy_budget
from webhook.engine.celruntime import CelRuntime, CompiledRule, Scope, Screened
from webhook.engine.context import Review
from webhook.engine.decision import Violation


def tenant_variable(tenant: Tenant | None) -> dict[str, Any]:
    if tenant is None:
        return {}
    value: dict[str, Any] = {
        "name": tenant.name,
        "namespaces": list(tenant.namespaces),
        "groups": list(tenant.groups),
        "clusters": sorted(tenant.clusters),
        "registries": list(tenant.registries),
        "dataScope": {
            kind: sorted(tenant.data_clusters(kind))
            for kind in ("ConfigMap", "PersistentVolumeClaim", "Secret")
        },
    }
    if tenant.max_replicas_per_app is not None:
        value["maxReplicasPerApp"] = tenant.max_replicas_per_app
    return value


def clusters_variable(bundle: Bundle) -> dict[str, Any]:
    return {
        name: {
            "name": name,
            "labels": dict(c.labels),
            **{
                k: v
                for k, v in (("provider", c.provider), ("region", c.region), ("zone", c.zone))
                if v is not None
            },
        }
        for name, c in bundle.clusters.items()
    }


class Activations:
    """One request's activations, built on first use and shared by every rule with the same
    params (most rules have none, so one conversion serves them all); and the plain variables
    the proofs read, likewise. Everything starts from the request's variables as ``screened``
    once per request."""

    def __init__(self, review: Review, runtime: CelRuntime) -> None:
        self._review, self._runtime = review, runtime
        tenant = review.tenant.name if review.tenant else None
        self._scope = Scope(tenant, review.cluster, review.request.namespace)
        runtime.count_review()
        self._cache: dict[int, Any] = {}
        self._plain: dict[int, dict[str, Any]] = {}
        self._fits: dict[str, bool] = {}
        self._validations: Any = None
        self._screened: Screened | None = None

    def _values(self) -> Screened:
        if self._screened is None:
            self._screened = self._runtime.screened(self._review.request)
        return self._screened

    def refusal(self, rule: Rule) -> str | None:
        """Why this CEL rule is refused on this request (``CelRuntime.refusal``), or None: it
        comes before every fast path, so the proofs, the all-pass conjunction and the engine
        give one answer."""
        screened = self._values()
        return self._runtime.refusal(rule, screened) if screened.found else None

    def proven(self, rule: Rule) -> bool:
        """Every matchCondition and validation of ``rule`` proven true in Python: it applies
        and passes. False when it has no proof or the proof does not come out true."""
        proof = self._runtime.proofs.get(rule.id)
        if proof is None:
            return False
        return proof.holds(self._plain_variables(rule.params), self._fits.get(rule.id))

    def fit_together(self, rules: Iterable[Rule], refused: Mapping[str, str]) -> None:
        """The cost check of these rules' proofs (CEL rules not ``refused``, without params:
        one activation) answered together (``proof.fit_together``) for ``proven`` to read:
        one replay of what they read, not one per proof."""
        proofs = self._runtime.proofs
        mine = [
            (r.id, p)
            for r in rules
            if r.builtin is None
            and r.id not in refused
            and not r.params
            and (p := proofs.get(r.id)) is not None
            and p.plans
        ]
        if len(mine) > 1:  # proofs are built, so lark is loaded: the import costs nothing
            from webhook.engine.cel.proof import fit_together  # noqa: PLC0415 - lark

            found = fit_together([p for _, p in mine], self._plain_variables({}))
            self._fits = {rule: fits for (rule, _), fits in zip(mine, found, strict=True)}

    def _plain_variables(self, params: Mapping[str, Any]) -> dict[str, Any]:
        key = id(params) if params else 0
        variables = self._plain.get(key)
        if variables is None:
            runtime = self._runtime
            variables = self._plain[key] = runtime.plain_variables(
                self._scope, self._values().values, params
            )
        return variables

    def get(self, params: Mapping[str, Any]) -> Any:
        key = id(params) if params else 0  # rules without params share one activation
        if key not in self._cache:
            runtime = self._runtime
            self._cache[key] = runtime.backend.activation(
                runtime.variables(self._scope, self._values().values, params)
            )
        return self._cache[key]

    def with_variables(
        self, rule: Rule, compiled: CompiledRule, params: Mapping[str, Any]
    ) -> tuple[Any, dict[str, str]]:
        """An activation with a ValidatingAdmissionPolicy's ``variables`` (each in order, over
        the ones before it), and the ones that could not be evaluated with why. A variable that
        fails is left out: an expression that reads it fails, one that does not (``false &&
        variables.x``) does not, as with the API server's lazy variables."""
        runtime = self._runtime
        base = runtime.variables(self._scope, self._values().values, params)
        done: dict[str, Any] = {}
        failed: dict[str, str] = {}
        activation = runtime.backend.activation({**base, "variables": {}})
        stale = False
        for (name, text), program in zip(rule.variables, compiled.variables, strict=True):
            if stale and "variables" in text:
                activation = runtime.backend.activation({**base, "variables": dict(done)})
                stale = False
            try:
                done[name] = runtime.backend.evaluate(program, activation)
                stale = True
            except CelEvalError as exc:
                failed[name] = str(exc)
        if stale:
            activation = runtime.backend.activation({**base, "variables": done})
        return activation, failed

    def validations(self) -> Any:
        """The activation of the all-pass conjunction: only what the validations of the
        eligible rules read (a messageExpression's ``filter`` needs whole items; a validation's
        ``all`` only the fields it tests)."""
        if self._validations is None:
            runtime = self._runtime
            self._validations = runtime.backend.activation(
                runtime.variables(self._scope, self._values().values, {}, runtime.validation_paths)
            )
        return self._validations


def evaluate(
    review: Review, rule: Rule, compiled: CompiledRule, backend: Backend, activations: Activations
) -> Iterator[Violation]:
    """The rule's violations on this request: with its params, or a ValidatingAdmissionPolicy
    binding's, resolved for the request (evaluated once per param object, as the API server
    does; none found: allowed, or an error under ``parameterNotFoundAction: Deny``)."""
    if rule.param_source is None:
        yield from _evaluate(review, rule, compiled, backend, activations, params=rule.params)
        return
    found = rule.param_source.resolve(review.request)
    if found is None:
        yield _error(
            review, rule, "no params found for policy binding with `Deny` parameterNotFoundAction"
        )
        return
    for params in found:
        yield from _evaluate(review, rule, compiled, backend, activations, params=params)


def _evaluate(
    review: Review,
    rule: Rule,
    compiled: CompiledRule,
    backend: Backend,
    activations: Activations,
    *,
    params: Mapping[str, Any],
) -> Iterator[Violation]:
    activation = activations.get(params)
    failure = None
    with policy_budget(MATCH_CONDITIONS_BUDGET):  # Kubernetes' own for matchConditions
        for index, condition in enumerate(compiled.conditions):
            try:
                result = backend.evaluate(condition, activation)
            except CelEvalError as exc:
                failure = f"matchConditions[{index}] could not be evaluated: {exc}"
                break
            if result is not True:
                return
    if failure is not None:  # yielded outside the budget's block: the caller runs in between
        yield _error(review, rule, failure)
        return
    failed: dict[str, str] = {}
    with policy_budget():  # Kubernetes' RuntimeCELCostBudget (counted by cel-python)
        if compiled.variables:
            activation, failed = activations.with_variables(rule, compiled, params)
        for index, (program, message_program) in enumerate(compiled.validations):
            validation = rule.validations[index]
            try:
                result = backend.evaluate(program, activation)
            except CelEvalError as exc:
                yield _error(
                    review,
                    rule,
                    f"validations[{index}] could not be evaluated: {exc}{_failed(failed)}",
                )
                continue
            if result is True:
                continue
            if result is not False:
                returned = f"validations[{index}] returned {result!r}, not a boolean"
                yield _error(review, rule, returned)
                continue
            yield review.violation(
                rule, _message(validation.message, message_program, backend, activation)
            )
    yield from _audit_annotations(review, rule, compiled, backend, activation)


def _audit_annotations(
    review: Review, rule: Rule, compiled: CompiledRule, backend: Backend, activation: Any
) -> Iterator[Violation]:
    """``<policy>/<key>``: the value each valueExpression gives (null: no annotation), kept
    with the review's audit annotations (``Review.annotations``); yields only the errors."""
    policy = rule.id.split("/")[0]
    for index, program in enumerate(compiled.audit_annotations):
        key = rule.audit_annotations[index][0]
        try:
            value = backend.evaluate(program, activation)
        except CelEvalError as exc:
            yield _error(review, rule, f"auditAnnotations[{index}] could not be evaluated: {exc}")
            continue
        if value is None:
            continue
        if not isinstance(value, str):
            yield _error(
                review, rule, f"auditAnnotations[{index}] returned {value!r}, not a string"
            )
            continue
        review.annotations.append((f"{policy}/{key}", value))


def _failed(failed: Mapping[str, str]) -> str:
    """Which variables could not be evaluated (an expression reading one fails with it)."""
    if not failed:
        return ""
    return "".join(
        f" (variables.{name} could not be evaluated: {why})" for name, why in failed.items()
    )


def _message(static: str, program: Any | None, backend: Backend, activation: Any) -> str:
    if program is None:
        return static
    try:
        text = backend.evaluate(program, activation)
    except CelEvalError:
        return static
    return text if isinstance(text, str) and text else static


def refused(review: Review, rule: Rule, why: str) -> Violation:
    """A rule refused on this request (``Activations.refusal``): an evaluation error."""
    return _error(review, rule, why)


def _error(review: Review, rule: Rule, message: str) -> Violation:
    """An evaluation error: fails closed (deny) under failurePolicy Fail, warns under Ignore."""
    violation = review.violation(rule, message, status="error")
    if rule.failure_policy == "Fail":
        return replace(violation, action="deny", enforced=None)
    return replace(violation, action="warn")

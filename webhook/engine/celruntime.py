"""The compiled CEL of a bundle: each rule's programs (compiled once at load) and the runtime
that holds what every request shares (read paths, proofs, the bundle's own variables).

It names neither the Bundle nor a Review: the bundle carries these as data
(``Bundle.compiled``, ``Bundle.cel_runtime``) and ``celrules.py`` evaluates them on a request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from webhook.base import forksafe
from webhook.bundle.rules import Rule
from webhook.engine.cel import Backend, CelCompileError, CelEvalError
from webhook.engine.cel.backend import VARIABLES
from webhook.engine.cel.paths import PathTree, narrowed, read_paths
from webhook.engine.cel.values import mended, problems, suspect
from webhook.engine.request import AdmissionRequest

if TYPE_CHECKING:
    from webhook.engine.cel.proof import Proof


@dataclass(frozen=True)
class CompiledRule:
    """A CEL rule's programs, compiled once when the bundle loads."""

    conditions: tuple[Any, ...]
    validations: tuple[tuple[Any, Any | None], ...]  # (expression, messageExpression)
    variables: tuple[Any, ...] = ()  # a ValidatingAdmissionPolicy's, in order
    audit_annotations: tuple[Any, ...] = ()  # its auditAnnotations' valueExpressions


def compile_rule(rule: Rule, backend: Backend) -> tuple[CompiledRule | None, list[tuple[str, str]]]:
    """The compiled rule, or the errors as (field path, message)."""
    errors: list[tuple[str, str]] = []

    def build(expression: str, where: str) -> Any:
        try:
            return backend.compile(expression)
        except CelCompileError as exc:
            errors.append((where, str(exc)))
            return None

    conditions = tuple(
        build(c, f"matchConditions[{i}]") for i, c in enumerate(rule.match_conditions)
    )
    validations = tuple(
        (
            build(v.expression, f"validations[{i}].expression"),
            build(v.message_expression, f"validations[{i}].messageExpression")
            if v.message_expression
            else None,
        )
        for i, v in enumerate(rule.validations)
    )
    variables = tuple(
        build(expression, f"variables[{i}].expression")
        for i, (_, expression) in enumerate(rule.variables)
    )
    audit = tuple(
        build(expression, f"auditAnnotations[{i}].valueExpression")
        for i, (_, expression) in enumerate(rule.audit_annotations)
    )
    if errors:
        return None, errors
    return CompiledRule(conditions, validations, variables, audit), []


def load_warnings(rule: Rule, backend: Backend) -> list[tuple[str, str]]:
    """(field path, warning) for each expression of ``rule`` that ``backend`` says it may
    refuse to evaluate on large requests (the default backend's ``load_warning``: a cost it
    cannot bound, in a construct cel-python cannot count)."""
    warn = getattr(backend, "load_warning", None)
    if warn is None:
        return []
    expressions = [
        *((f"matchConditions[{i}]", c) for i, c in enumerate(rule.match_conditions)),
        *((f"validations[{i}].expression", v.expression) for i, v in enumerate(rule.validations)),
        *(
            (f"validations[{i}].messageExpression", v.message_expression)
            for i, v in enumerate(rule.validations)
            if v.message_expression
        ),
        *((f"variables[{i}].expression", e) for i, (_, e) in enumerate(rule.variables)),
        *(
            (f"auditAnnotations[{i}].valueExpression", e)
            for i, (_, e) in enumerate(rule.audit_annotations)
        ),
    ]
    found = []
    for where, expression in expressions:
        message = warn(expression)
        if message is not None:
            found.append((where, message))
    return found


@dataclass(frozen=True)
class Scope:
    """Where one request is reviewed, as the bundle's variables need it: the tenant owning the
    namespace (its name), the member cluster a per-cluster copy is bound for, the namespace."""

    tenant: str | None
    cluster: str | None
    namespace: str


class CelRuntime:
    """What a bundle compiles once for CEL: which parts of the object the rules read, and the
    fast paths for the common case, where every rule passes.

    First, proofs (``cel.proof``): a rule whose every matchCondition and validation is in the
    subset ``compile_proof`` translates is proven to pass in Python, on the variables as they
    arrived, without the engine; when a proof does not come out true, the engine decides as if
    there were none. ``proofs=False`` turns them off (every expression goes to the engine).
    ``proofs_after=N`` builds them only once N requests have been reviewed: translating the
    rules (and importing the CEL parser) costs ~0.1 s, more than a command reviewing a handful
    of objects saves; the webhook builds them at load. Decisions are the same either way.

    The ``tenant`` and ``clusters`` variables depend only on the bundle: they are built here,
    once, not per request. Only the variables some expression names, and of those only the
    paths it reads (``cel.paths.read_paths``), are handed to the engine: a Deployment's
    metadata, selector and pod-template labels are most of it, and no shipped rule reads them.

    The validations of the CEL rules a request matches (those without matchConditions or
    params) are compiled once into one conjunction per set of rules, evaluated on an activation
    narrowed to what those validations read (``validation_paths``): CEL's ``&&`` is true only
    when every operand is true (an error or a false makes it error or false), so one
    evaluation that returns true proves every validation passes. Anything else falls back to
    evaluating each validation, which finds and words the failures. Compiled on first use of
    a set, under a lock (neither engine promises a thread-safe compile), kept for the bundle.
    """

    def __init__(
        self,
        backend: Backend,
        rules: Sequence[Rule],
        *,
        clusters: Mapping[str, Any],
        tenants: Mapping[str, Any],
        proofs: bool = True,
        proofs_after: int = 0,
        namespaces: Mapping[str, Any] | None = None,
    ) -> None:
        self.backend = backend
        self.namespaces = namespaces or {}
        """The Namespace objects the bundle holds (``namespaceObject``; else null)."""
        self._by_id = {r.id: r for r in rules}
        self._rules = tuple(rules)
        self.proofs: dict[str, Proof] = {}
        self.proof_faults: tuple[str, ...] = ()
        """Proofs that failed to build for a reason other than 'outside the subset': bugs of
        the translation (those rules go to the engine; the server logs and counts them)."""
        self.proof_reads: frozenset[str] = frozenset()
        self._proof_lock = forksafe.lock()
        self._reviews_before_proofs = max(proofs_after, 0) if proofs else -1
        """Reviews still to come before the proofs are built; -1: never (off or built)."""
        if self._reviews_before_proofs == 0:
            self._build_proofs()
        self.read_paths = read_paths(
            [text for r in rules if r.builtin is None for text in _texts(r)]
        )
        self.validation_paths = read_paths(
            [v.expression for r in rules if self.eligible(r) for v in r.validations]
        )
        self.rule_paths = {
            r.id: read_paths(
                [
                    *r.match_conditions,
                    *(v.expression for v in r.validations),
                    *(expression for _, expression in r.variables),
                ]
            )
            for r in rules
            if r.builtin is None
        }
        """What each rule's decision reads: where a value no engine represents refuses it
        (``refusal``); its messages only word a failure the decision already made."""
        self.clusters = narrowed(dict(clusters), self.read_paths.get("clusters"))
        self.cluster = {n: narrowed(c, self.read_paths.get("cluster")) for n, c in clusters.items()}
        self.tenants = {
            name: narrowed(value, self.read_paths.get("tenant")) for name, value in tenants.items()
        }
        self._programs: dict[tuple[str, ...], Any] = {}
        self._lock = forksafe.lock()

    def variables(
        self,
        scope: Scope,
        values: Mapping[str, Any],
        params: Mapping[str, Any],
        reads: Mapping[str, PathTree | None] | None = None,
    ) -> dict[str, Any]:
        """The variables some expression names, narrowed to the paths they read (``reads``:
        those of every expression, unless given; tenants and clusters are narrowed once, to
        what every expression reads). ``values``: the request's variables as ``screened``."""
        reads = self.read_paths if reads is None else reads
        found: dict[str, Any] = self._shared(scope, reads)
        for name in REQUEST_VARIABLES:
            if name in reads:
                found[name] = narrowed(values[name], reads[name])
        if "params" in reads:
            found["params"] = narrowed(dict(params), reads["params"])
        return found

    def _build_proofs(self) -> None:
        faults: list[str] = []
        built = _proofs(self._rules, faults)
        self.proof_faults = tuple(faults)
        self.proof_reads = frozenset(name for proof in built.values() for name in proof.variables)
        self.proofs = built  # after proof_reads: a reader that sees a proof sees what it reads
        self._reviews_before_proofs = -1

    def count_review(self) -> None:
        """One more request under review: the proofs are built when ``proofs_after`` is
        reached (a no-op once they are built, or when they are off)."""
        if self._reviews_before_proofs <= 0:
            return
        with self._proof_lock:
            if self._reviews_before_proofs > 0:
                self._reviews_before_proofs -= 1
                if self._reviews_before_proofs == 0:
                    self._build_proofs()

    def plain_variables(
        self, scope: Scope, values: Mapping[str, Any], params: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The variables the proofs read, as screened: a proof reads only what it names, so
        nothing needs narrowing (the bundle's tenants and clusters are the same values)."""
        reads = self.proof_reads
        found: dict[str, Any] = self._shared(scope, reads)
        for name in REQUEST_VARIABLES:
            if name in reads:
                found[name] = values[name]
        if "params" in reads:
            found["params"] = dict(params)
        return found

    def screened(self, request: AdmissionRequest) -> Screened:
        """The request's variables as CEL sees them (nulls kept, as Kubernetes' admission CEL
        keeps them), and every (field, why) no engine represents faithfully in
        what some rule reads (``cel.values``), such values mended for the rules that do not
        read them."""
        raw = {
            "object": request.object,
            "oldObject": request.old_object,
            "request": request_variable(request) if "request" in self.read_paths else None,
        }
        values: dict[str, Any] = {}
        found: list[tuple[str, str]] = []
        for name, value in raw.items():
            if name in self.read_paths and value is not None and suspect(value):
                tree = self.read_paths[name]
                here = list(problems(value, name, tree))
                if here:
                    value = mended(value, tree)  # noqa: PLW2901
                found += here
            values[name] = value
        return Screened(values, raw, found)

    def refusal(self, rule: Rule, screened: Screened) -> str | None:
        """Why ``rule`` cannot be evaluated faithfully on this request (a value its decision
        reads that no engine represents), or None."""
        if not screened.found:
            return None
        reads, raw = self.rule_paths.get(rule.id, {}), screened.raw
        mine = [
            problem
            for name in REQUEST_VARIABLES
            if name in reads and raw[name] is not None
            for problem in problems(raw[name], name, reads[name])
        ]
        if not mine:
            return None
        (where, why), more = mine[0], len(mine) - 1
        others = f" (and {more} more such value{'s' if more > 1 else ''})" if more else ""
        return f"{where} {why}{others}: the rule cannot be evaluated on this request"

    def _shared(self, scope: Scope, reads: Mapping[str, Any] | frozenset[str]) -> dict[str, Any]:
        """The variables that come from the bundle, built once when it loads."""
        values: dict[str, Any] = {}
        if "tenant" in reads:
            values["tenant"] = self.tenants.get(scope.tenant, {}) if scope.tenant else {}
        if "clusters" in reads:
            values["clusters"] = self.clusters
        if "cluster" in reads:
            values["cluster"] = self.cluster.get(scope.cluster, {}) if scope.cluster else {}
        if "namespaceObject" in reads:
            values["namespaceObject"] = self.namespaces.get(scope.namespace)
        return values

    @staticmethod
    def provable(rule: Rule) -> bool:
        """A proof can stand in for it: its decision is all it yields (no audit annotations)
        and it reads only variables a proof has (no VAP variables or per-request params)."""
        return (
            rule.builtin is None
            and rule.param_source is None
            and not rule.variables
            and not rule.audit_annotations
        )

    @staticmethod
    def eligible(rule: Rule) -> bool:
        return (
            rule.builtin is None
            and not rule.match_conditions
            and not rule.params
            and not rule.variables
            and rule.param_source is None
            and not rule.audit_annotations
        )

    def program(self, rule_ids: tuple[str, ...]) -> Any:
        program = self._programs.get(rule_ids)
        if program is None:
            with self._lock:
                program = self._programs.get(rule_ids)
                if program is None:
                    expression = " && ".join(
                        f"({v.expression})"
                        for rule_id in rule_ids
                        for v in self._by_id[rule_id].validations
                    )
                    program = self.backend.compile(expression)
                    self._programs[rule_ids] = program
        return program

    def all_pass(self, rule_ids: tuple[str, ...], activation: Any) -> bool:
        # a backend that may hand an evaluation to a slower counting engine offers the fast
        # one alone (``routed.py``): the rules are evaluated one by one after a miss anyway
        evaluate = getattr(self.backend, "evaluate_bounded", self.backend.evaluate)
        try:
            return evaluate(self.program(rule_ids), activation) is True
        except (CelEvalError, CelCompileError):
            return False


@dataclass(frozen=True)
class Screened:
    """One request's variables from the request, as CEL is handed them (``values``) and as
    they arrived (``raw``), and what no engine represents in what some rule reads."""

    values: Mapping[str, Any]
    raw: Mapping[str, Any]
    found: list[tuple[str, str]]


REQUEST_VARIABLES = ("object", "oldObject", "request")
"""The variables that come from the request (the others come from the bundle)."""


def _texts(rule: Rule) -> tuple[str, ...]:
    """Every CEL text of a rule: what it reads is what these read."""
    return (
        *rule.match_conditions,
        *(v.expression for v in rule.validations),
        *(v.message_expression or "" for v in rule.validations),
        *(expression for _, expression in rule.variables),
        *(expression for _, expression in rule.audit_annotations),
    )


def _proofs(rules: Sequence[Rule], faults: list[str]) -> dict[str, Proof]:
    """One proof per CEL rule wholly in the subset: its conditions and validations all true;
    a translation that broke is appended to ``faults`` (with the rule's id)."""
    from webhook.engine.cel.proof import compile_proof  # noqa: PLC0415 - lark, only when built

    found: dict[str, Proof] = {}
    for rule in rules:
        if CelRuntime.provable(rule):
            expressions = [*rule.match_conditions, *(v.expression for v in rule.validations)]
            broken: list[str] = []
            proof = compile_proof(expressions, VARIABLES, broken)
            faults += [f"{fault} (rule {rule.id})" for fault in broken]
            if proof is not None:
                found[rule.id] = proof
    return found


def request_variable(request: AdmissionRequest) -> dict[str, Any]:
    return {k: v for k, v in request.raw.items() if k not in ("object", "oldObject")}

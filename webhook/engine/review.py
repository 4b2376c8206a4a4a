"""``review(request, bundle) -> Decision``: the one rule engine, pure, used everywhere.

The webhook, ``fedgate check``, ``fedgate review``, ``fedgate test`` and ``fedgate compile``
all call this function; no rule is implemented anywhere else.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import date

from webhook.bundle.model import Bundle
from webhook.bundle.rules import Match, Rule
from webhook.engine import admissible, celrules, controllers, retain
from webhook.engine.budget import Budget, BudgetExceeded, spending
from webhook.engine.budget import check as check_budget
from webhook.engine.budget import current as current_budget
from webhook.engine.builtins import BUILTINS, WRITER_RULES
from webhook.engine.celruntime import CelRuntime
from webhook.engine.context import Review
from webhook.engine.decision import Decision, ExceptionUse, Violation
from webhook.engine.enforcement import Point
from webhook.engine.identity import identify
from webhook.engine.lifting import lift
from webhook.engine.ownfields import own_fields_only
from webhook.engine.registration import ANNOTATION_RULES, annotation_only
from webhook.engine.request import AdmissionRequest
from webhook.engine.tenancy import placement_targets

EXEMPT_WRITERS = (controllers.SYSTEM,)
"""The control plane's own controllers (namespace deletion, garbage collection, finished Jobs'
TTL): never blocked in their lanes (``controllers.py``), or deleting a namespace would hang
forever; any other write of theirs is judged as anyone's is."""
BREAK_GLASS = "break-glass"
MARKER_RULES = WRITER_RULES | {"retain.replicas-label"}
"""The rules about who writes and the one about the retain label: all that judges Karmada's
hpaScaleTargetMarker setting or removing it (``retain.marks_scale_target``)."""
UNEXPECTED = "request.unexpected"
"""The violation of a request the API server never sends (``admissible.py``): not a bundle
rule, so no bundle can turn it off."""


def review(
    request: AdmissionRequest,
    bundle: Bundle,
    *,
    cluster: str | None = None,
    point: Point | None = "webhook",
    today: date | None = None,
    budget: Budget | None = None,
) -> Decision:
    """Every matching rule on ``request``; allowed unless a deny violation stands.

    ``cluster`` names the member cluster the object is bound for, when it is one member's copy
    (``fedgate plan``); CEL rules see it as the ``cluster`` variable (empty at admission).
    ``point`` is where this review runs (the shell's to say): each rule takes its binding's
    action for that enforcement point, and a staged rule's violation says what it does once
    enforced; None judges every rule as enforced (its strongest action anywhere).
    ``today`` (else ``bundle.today``) is the day exceptions are judged on: an exception in
    force lifts the violations it covers, and the Decision lists them (``exceptions``).
    ``budget``: the review's budget (``budget.py``, the shell's): past it the review stops and
    raises ``BudgetExceeded``; None keeps the one in force (none: unbounded)."""
    if budget is None:  # keeps the one in force: ``spending(None)`` would do nothing
        return _review(request, bundle, cluster, point, today)
    with spending(budget):
        return _review(request, bundle, cluster, point, today)


def _review(
    request: AdmissionRequest,
    bundle: Bundle,
    cluster: str | None,
    point: Point | None,
    today: date | None,
) -> Decision:
    check_budget()  # a member copy's review, too
    today = today if today is not None else bundle.today
    tenant = bundle.tenant_of_namespace(request.namespace) if request.namespace else None
    identity = bundle.memo(
        "identity",
        (request.user.username, request.user.groups, tenant.name if tenant else None),
        lambda: identify(request.user, bundle, tenant),
    )
    unexpected = admissible.problems(request, bundle)
    if unexpected:  # before anyone's exemption: the API server never sends these
        return Decision.of(
            [
                Violation(UNEXPECTED, "", "", identity.describe(), "deny", "error", problem)
                for problem in unexpected
            ]
        )
    context = Review(request, bundle, identity, tenant, cluster, point, today, reviewer=review)
    targets = _targets(context)
    if identity.writer in EXEMPT_WRITERS and controllers.in_lane(request, identity.username):
        return Decision(allowed=True, targets=targets)
    faults: list[str] = []
    violations = list(_violations(context, faults))
    audit = list(context.annotations)  # made by the rules above, apart from their objections
    violations, lifted, expired = lift(violations, context, today)
    lifted += context.lifted_inside
    if identity.writer == BREAK_GLASS:
        decision = _break_glass(context, violations, targets, audit, lifted)
        return replace(decision, faults=tuple(faults))
    return Decision.of(
        violations, notes=expired, targets=targets, audit=audit, faults=faults, lifted=lifted
    )


def _violations(context: Review, faults: list[str]) -> Iterator[Violation]:
    """Every rule's violations; what breaks in a shortcut is appended to ``faults``."""
    bundle = context.bundle
    request = context.request
    in_tenant_namespace = context.tenant is not None
    runtime = bundle.cel_runtime
    applicable, any_cel = _applicable(bundle, request, in_tenant_namespace)
    matched = [rule for rule, always in applicable if always or rule.match.selects(request)]
    if own_fields_only(request, context.identity):  # judged on those fields alone
        matched = [r for r in matched if r.builtin in WRITER_RULES]
        any_cel = False  # every rule kept is a built-in one
    elif retain.marks_scale_target(context):  # Karmada's hpaScaleTargetMarker: the label alone
        matched = [r for r in matched if r.builtin in MARKER_RULES]
        any_cel = False
    if annotation_only(request, context.point):  # sent for its conflict-resolution annotation
        matched = [r for r in matched if r.builtin in ANNOTATION_RULES]
        any_cel = False
    activations: celrules.Activations | None = None
    if runtime is not None:
        if any_cel:  # else no CEL rule to convert the object for, prove or evaluate
            activations = celrules.Activations(context, runtime)
        else:  # the count of reviews (``CelRuntime.count_review``) is kept all the same
            runtime.count_review()
    refused: dict[str, str] = {}
    passed: set[str] = set()
    budget = current_budget()  # the rules below run within it: read once, checked per rule
    if activations is not None and runtime is not None:
        try:
            refused, passed = _fast_paths(matched, activations, runtime)
        except BudgetExceeded:
            raise
        except Exception as exc:  # every rule below is guarded: the slow path decides
            refused, passed = {}, set()
            faults.append(f"fast-path: {type(exc).__name__}: {exc}"[:300])
    for rule in matched:
        if rule.id in passed:
            continue
        if budget is not None:
            budget.check()
        try:
            if rule.id in refused:
                yield celrules.refused(context, rule, refused[rule.id])
            elif rule.builtin is not None:
                yield from BUILTINS[rule.builtin][0](context, rule)
            elif activations is not None and runtime is not None:
                yield from celrules.evaluate(
                    context, rule, bundle.compiled[rule.id], runtime.backend, activations
                )
        except BudgetExceeded:  # the review stops: the shell denies the request
            raise
        except Exception as exc:  # a rule that breaks fails closed, it never crashes review
            yield _internal_error(context, rule, exc)


def _fast_paths(
    matched: list[Rule], activations: celrules.Activations, runtime: CelRuntime
) -> tuple[dict[str, str], set[str]]:
    """The CEL rules refused on this request (a value they read no engine represents), and
    the rules known to pass without evaluating each: proven in Python, or together in one
    all-pass conjunction. Refusals come first, so no fast path answers for a refused rule."""
    cel = [r for r in matched if r.builtin is None]  # no built-in rule has a proof or a program
    refused = {r.id: why for r in cel if (why := activations.refusal(r))}
    activations.fit_together(cel, refused)
    passed = {  # proven in Python, without converting the object for the engine
        r.id for r in cel if r.id not in refused and activations.proven(r)
    }
    fast = [
        r.id for r in cel if r.id not in passed and r.id not in refused and CelRuntime.eligible(r)
    ]
    if len(fast) > 1 and runtime.all_pass(tuple(fast), activations.validations()):
        passed.update(fast)  # every validation of these rules holds: one evaluation proved it
    return refused, passed


def _targets(context: Review) -> tuple[str, ...] | None:
    """The clusters a propagation policy can select, for the audit line; None where the
    object is too broken to say (the rules, which are guarded, say what is wrong with it)."""
    try:
        return placement_targets(context)
    except Exception:
        return None


def _applicable(
    bundle: Bundle, request: AdmissionRequest, in_tenant: bool
) -> tuple[tuple[tuple[Rule, bool], ...], bool]:
    """The rules a request of this kind, operation, subresource and scope meets, before object
    selectors: the same for every such request, so worked out once per bundle. Each with
    whether it selects every such request (fedgate's ``Match`` without an object selector,
    whose ``selects`` is always true), so that only the others are asked; and whether any of
    them is a CEL rule (none: the review builds no CEL activations and runs no fast path)."""
    group, kind, operation, sub = (
        request.kind.group,
        request.kind.kind,
        request.operation,
        request.sub_resource,
    )
    return bundle.memo(
        "applicable-rules",
        (group, kind, operation, sub, in_tenant),
        lambda: _with_cel(
            tuple(
                (r, type(r.match) is Match and r.match.object_selector is None)
                for r in bundle.rules_for(group, kind)
                if r.match.applies(group, kind, operation, sub, in_tenant)
            )
        ),
    )


def _with_cel(
    applicable: tuple[tuple[Rule, bool], ...],
) -> tuple[tuple[tuple[Rule, bool], ...], bool]:
    return applicable, any(rule.builtin is None for rule, _ in applicable)


def _internal_error(context: Review, rule: Rule, exc: Exception) -> Violation:
    violation = context.violation(
        rule,
        f"the rule failed on this object ({type(exc).__name__}: "
        f"{exc}); the request is denied until it can be evaluated",
        status="error",
    )
    return replace(violation, action="deny", enforced=None)


def _break_glass(
    context: Review,
    violations: list[Violation],
    targets: tuple[str, ...] | None,
    audit: list[tuple[str, str]],
    lifted: list[ExceptionUse],
) -> Decision:
    """Allowed, every objection kept as a warning, and the bypass recorded for the audit log
    (what exceptions lifted is not bypassed: it stays theirs)."""
    softened = [
        replace(v, action="warn", status="warn" if v.status == "fail" else v.status)
        for v in violations
    ]
    who = context.identity.describe()
    rules = sorted({v.rule for v in violations})
    bypass = f"{who} bypassed {', '.join(rules)}" if rules else f"{who} wrote with emergency access"
    return Decision.of(
        softened,
        notes=[f"break-glass: {bypass}"],
        audit=[("break-glass", bypass), *audit],
        targets=targets,
        lifted=lifted,
    )

"""The cost bound (``bound.py``) and the routing it decides (``routed.py``): the bound is never
below what cel-python counts (the count the API server's is held to by the cost oracle), and
the default backend answers what cel-python answers: the value, an error, or the API server's
out-of-budget error where the evaluation would not finish there.

Hypothesis generates expressions (nested comprehensions, string functions, lists and maps)
over objects of generated sizes, up to hostile ones (a 100,000-character string, hundreds of
items). Time and memory are bounded by construction: at most ``EXAMPLES`` examples, nesting 3
deep, lists of at most 120 items, one string of at most 100,000 characters (the others short),
and every evaluation stops within 10,000 comprehension iterations (both engines' budget).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.webhook.engine.cel.boundcheck import PYTHON, ROUTED, bounds, counted, outcome
from tests.webhook.engine.custom_rules import DEPLOYMENT, HOSTILE_RULE, MATCH, bundle_with, hostile
from webhook.engine.cel import bound, cost
from webhook.engine.cel.backend import VARIABLES, CelEvalError
from webhook.engine.cel.celpython import COST_EXCEEDED
from webhook.engine.cel.proof import compile_proof
from webhook.engine.cel.refusal import might_refuse, refused
from webhook.engine.cel.routed import RoutedBackend
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request
from webhook.shell.app import create_app
from webhook.shell.settings import Settings

EXAMPLES = 200


OBJECT = {
    "object": {
        "l": [1, 2, 3],
        "ls": ["a", "bc", "def"],
        "s": "hello world" * 10,
        "t": "wor",
        "m": {"k": 1, "j": "x"},
        "n": 4,
        "nested": [[1, 2], [3], []],
        "ip": "10.0.0.1",
    }
}


@pytest.mark.parametrize(
    "expression",
    [
        "true",
        "object.l[0] + object.n",
        "object.s.contains(object.t) && object.s.startsWith('h')",
        "object.s.matches('w.r') || object.s.endsWith(object.t)",
        "object.l.all(x, x > 0) && object.l.exists(x, x > 2) && object.l.exists_one(x, x == 1)",
        "object.l.map(x, x * 2).filter(y, y > 2).size() == 2",
        "object.l.map(x, x > 1, x).size() == 2",
        "object.ls.map(x, object.ls.all(y, x.contains(y) || y.contains(x))).exists(z, z)",
        "object.s.lowerAscii().upperAscii().replace('L', 'xx').split('x').size() > 1",
        "object.ls.join(', ').size() > 3 && object.ls.join().size() > 1",
        "object.s.substring(1, 3) == 'el' && object.s.trim().size() > 0",
        "object.s + object.t == object.t + object.s",
        "object.l + [4, 5] == [1, 2, 3, 4, 5] && 2 in object.l && 'k' in object.m",
        "object.m.all(k, k.size() == 1) && has(object.m.k) && !has(object.m.z)",
        "object.l.isSorted() && object.l.sum() == 6 && object.l.max() == 3",
        "object.l.indexOf(2) == 1 && object.ls.lastIndexOf('bc') == 1",
        "object.nested.flatten().size() == 3 && object.nested.flatten(2).size() == 3",
        "object.l.distinct().size() == 3 && object.l.sort() == object.l.reverse().reverse()",
        "object.l.slice(0, 2).size() == 2 && lists.range(3).size() == 3",
        "sets.contains(object.l, [1]) && sets.intersects(object.l, [3, 9])",
        "sets.equivalent(object.l, [3, 2, 1])",
        "object.s.find('w[a-z]+') == 'world' && object.s.findAll('o').size() == 20",
        "isIP(object.ip) && ip(object.ip).family() == 4",
        "cidr('10.0.0.0/8').containsIP(object.ip)",
        "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')",
        "quantity('1Gi').isGreaterThan(quantity('1Mi')) && isQuantity(object.t) == false",
        "url('https://a.example/x?y=1').getQuery().size() == 1",
        "string(object.n) == '4' && int('5') == 5 && double(object.n) == 4.0",
        "dyn(object.l)[1] == 2 && object.m['k'] == 1 && object.ls[2].size() == 3",
        "object.n > 3 ? object.s.contains(object.t) : object.s.size() > 1000",
        "object.l.all(x, object.missing.all(y, y))",
        "[object.l, object.ls].size() == 2 && [object.n, 1].size() == 2",
    ],
)
def test_the_bound_is_at_least_cel_pythons_count(expression: str) -> None:
    measured = counted(expression, OBJECT)
    assert measured is not None, f"cel-python refuses {expression}"
    value, spent = measured
    exact, static = bounds(expression, OBJECT)
    assert exact is not None and exact.cost >= spent, (exact, spent, value)
    assert static is not None and static.cost >= exact.cost, (static, exact)
    assert outcome(ROUTED, expression, OBJECT) == outcome(PYTHON, expression, OBJECT)


@pytest.mark.parametrize(
    "expression",
    [
        "lists.range(object.l.sum()).size() == 6",  # a count the walk has no top for
        "object.nested.flatten(object.l.sum()).size() > 0",  # a computed depth
    ],
)
def test_what_the_walk_does_not_follow_is_unbounded(expression: str) -> None:
    plan = bound.plan(expression)
    assert plan is None or plan.exact(bound.Sizes(OBJECT)) is None


BEYOND_CEL_PYTHON = [
    "object.l.all(x, cel.bind(y, x, y > 0))",
    "object.l.all(i, x, x > 0) && object.m.exists(k, v, k == 'k' && v == 1)",
    "object.l.existsOne(i, v, v == 1) && object.l.exists_one(i, v, i == 0)",
    "object.l.transformList(i, v, v * 2).size() == 3",
    "object.l.transformList(i, v, v > 1, v).size() == 2",
    "object.m.transformMap(k, v, k).size() == 2",
    "object.m.transformMapEntry(k, v, {k: k}).size() == 2",
    "object.l.all(x, optional.of(x).hasValue())",
    "object.m.?k.orValue(0) == 1 && !object.m.?z.hasValue()",
    "object.l[?0].value() == 1 && object.m[?'z'].or(optional.of(2)).value() == 2",
    "[?object.m.?k, ?optional.none()].size() == 1",
    "{?'a': object.m.?k}.size() == 1",
    "object.m.?k.optMap(v, v + 1).orValue(0) == 2",
    "object.ls.sortBy(x, x.size()).size() == 3",
    "lists.range(size(object.l)).size() == 3",
    "lists.range(-9223372036854775808 % 5).size() == 0 && lists.range(object.n % 3).size() < 3",
    "math.ceil(2.5) == 3.0 && math.abs(-1) == 1",
    "format.dns1123Label().validate(object.t).hasValue() == false",
    "format.named('uri').value().validate(object.s).hasValue()",
    "'%s and %d'.format([object.t, object.n]).size() > 0",
]
"""Constructs cel-python refuses (or refused when written): the walk follows each."""


@pytest.mark.parametrize("expression", BEYOND_CEL_PYTHON)
def test_the_walk_follows_what_cel_python_refuses_and_cel_expr_runs_it(expression: str) -> None:
    """Each is bounded (its bound against the API server's own count: the cost oracle's
    ``test_constructs_beyond_cel_python_cost_at_most_their_bound``), within the limit on a
    small object, so the default backend evaluates it on cel-expr, as cel-expr alone does."""
    exact, static = bounds(expression, OBJECT)
    assert exact is not None and static is not None and static.cost >= exact.cost
    engine = RoutedBackend()
    program = engine.compile(expression)
    assert engine.route(program, engine.activation(OBJECT)) is not None
    alone = engine.expr
    value = alone.evaluate(alone.compile(expression), alone.activation(OBJECT))
    assert engine.evaluate(program, engine.activation(OBJECT)) == value is True
    assert engine._python is None


def _hostile_spread(items: int) -> dict[str, Any]:
    return {"object": {"l": list(range(items)), "s": "x" * 100_000, "t": "y" * 10, "m": {}}}


@pytest.mark.parametrize(
    ("expression", "construct"),
    [
        ("object.l.all(x, !object.s.contains(strings.quote(object.t)))", "strings.quote()"),
        ("object.l.all(x, !object.s.contains(object.m.?t.orValue(object.t)))", "optional .?"),
        (
            "object.l.all(x, !object.s.contains(object.t) && !format.dns1123Label()"
            ".validate(object.t).hasValue())",
            "format.dns1123Label()",
        ),
    ],
)
def test_an_unbounded_expression_cel_python_refuses_fails_closed(
    expression: str, construct: str
) -> None:
    """300 searches of a 100,000-character string: at least 3,000,000 in Kubernetes' count, past
    its per-call limit; cel-python cannot count the construct, so the default backend does not
    evaluate it (cel-expr would run it to its end): an evaluation error naming the construct,
    which the rule's failurePolicy decides."""
    engine = RoutedBackend()
    program = engine.compile(expression)
    with pytest.raises(
        CelEvalError, match=r"may reach \d{1,3}(,\d{3}){2,} on this request"
    ) as caught:
        engine.evaluate(program, engine.activation(_hostile_spread(300)))
    assert construct in str(caught.value) and "fails closed" in str(caught.value)
    assert engine.evaluate(program, engine.activation(_hostile_spread(3))) is True


def test_an_expression_past_only_the_iteration_bound_runs_on_cel_expr() -> None:
    """Within the cost limit but maybe past 10,000 iterations: cel-expr evaluates, and its own
    iteration budget stops it (cel-python, which cannot run the construct, is not needed)."""
    engine = RoutedBackend()
    program = engine.compile("object.l.all(i, x, x >= 0)")
    activation = engine.activation(_hostile_spread(20_000))
    found = engine._bound(program, activation)[0]
    assert found is not None and found.cost <= cost.PER_CALL_LIMIT < 100 * found.iterations
    with pytest.raises(CelEvalError, match=r"(?i)budget|iteration"):
        engine.evaluate(program, activation)
    assert engine.evaluate(program, engine.activation(_hostile_spread(9_000))) is True


def test_a_rule_that_may_fail_closed_is_warned_of_when_the_bundle_loads(tmp_path: Path) -> None:
    """At the largest request the API server accepts (3 MiB) the rule's bound passes the
    per-call limit and cel-python cannot count its construct: the bundle loads, with a
    warning naming the file and line, the construct and the size from which it fails closed;
    an expression cel-python counts, or one within the limit at 3 MiB, is not warned of."""
    rule = (
        "validations:\n"
        "  - expression: object.spec.template.spec.containers.all(c, c.name.size() < 64)\n"
        "    message: counted by cel-python\n"
        "  - expression: object.metadata.?name.orValue('') != 'x'\n"
        "    message: small at any size\n"
        "  - expression: >-\n"
        "      object.spec.template.spec.containers.all(c,\n"
        "      !format.dns1123Label().validate(c.name).hasValue())\n"
        "    message: names\n"
    )
    bundle = bundle_with(tmp_path, rule, f"action: deny\n{MATCH}", "cel-expr")
    [warning] = bundle.warnings
    assert warning.file.endswith("rules/custom/rule.yaml") and warning.line == 8  # id, description
    assert warning.path == "validations[2].expression"
    assert "on requests larger than 1 KiB (of the 3 MiB the API server accepts)" in warning.message
    assert "cannot run format.dns1123Label(), hasValue(), validate()" in warning.message
    python = bundle_with(
        tmp_path / "python", rule.split("  - expression: >-", maxsplit=1)[0], MATCH_DENY
    )
    assert python.warnings == ()


MATCH_DENY = f"action: deny\n{MATCH}"


def test_the_webhook_logs_the_bundles_warnings_when_it_starts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    rule = (
        "validations:\n"
        "  - expression: object.spec.template.spec.containers.all(c, c.name.size() < 64 &&\n"
        "      strings.quote(c.name) != '')\n"
        "    message: names\n"
    )
    bundle = bundle_with(tmp_path, rule, MATCH_DENY)
    with caplog.at_level(logging.WARNING, logger="fedgate.webhook"):
        create_app(bundle, Settings(audit_log=False))
    [logged] = [r.getMessage() for r in caplog.records if "fails closed" in r.getMessage()]
    assert "rules/custom/rule.yaml:4: validations[0].expression" in logged


def test_the_textual_filter_never_misses_what_cel_python_refuses() -> None:
    """``might_refuse`` (no parse) says True wherever ``refused`` (cel-python's own checks on
    the tree) finds a construct: over Kubernetes' test tables and the expressions here."""
    from tests.webhook.engine.cel.kubernetes_tables import CASES  # noqa: PLC0415

    expressions = [c.expression for c in CASES] + BEYOND_CEL_PYTHON
    refusing = [e for e in expressions if refused(e)]
    assert len(refusing) > 100
    assert [e for e in refusing if not might_refuse(e)] == []


# ---- generated: expressions of three kinds, each over the ones below it


def _strings(depth: int) -> st.SearchStrategy[str]:
    leaves = st.sampled_from(["object.s", "object.t", "'ab,c'", "object.ls[0]", "object.m.j"])
    if depth == 0:
        return leaves
    below, lists = _strings(depth - 1), _lists(depth - 1)
    return st.one_of(
        leaves,
        st.builds("{} + {}".format, below, below),
        st.builds("{}.lowerAscii()".format, below),
        st.builds("{}.replace('o', 'oo')".format, below),
        st.builds("{}.join(',')".format, st.sampled_from(["object.ls", "object.s.split('o')"])),
        st.builds("string({}.size())".format, lists),
    )


def _lists(depth: int) -> st.SearchStrategy[str]:
    leaves = st.sampled_from(["object.l", "object.ls", "[1, 2, 3]", "object.m", "[object.t]"])
    if depth == 0:
        return leaves
    below, strings, tests = _lists(depth - 1), _strings(depth - 1), _bools(depth - 1)
    variable = f"v{depth}"
    return st.one_of(
        leaves,
        st.builds("({} + {})".format, below, below),
        st.builds(f"{{}}.map({variable}, {{}})".format, below, strings),
        st.builds(f"{{}}.filter({variable}, {{}})".format, below, tests),
        st.builds("{}.split('o')".format, strings),
    )


def _bools(depth: int) -> st.SearchStrategy[str]:
    leaves = st.sampled_from(
        [
            "true",
            "object.n > 2",
            "has(object.m.k)",
            "object.s.contains(object.t)",
            "object.s.startsWith(object.t)",
            "object.s.matches('o+r')",
            "object.l == [1, 2, 3]",
            "3 in object.l",
            "size(object.ls) > 1",
            "object.missing",
        ]
    )
    if depth == 0:
        return leaves
    below, strings, lists = _bools(depth - 1), _strings(depth - 1), _lists(depth - 1)
    variable = f"v{depth}"
    body = st.one_of(below, st.just(f"string({variable}).contains(object.t)"))
    return st.one_of(  # no leaf at the top: every example has a comprehension or a call
        st.builds("({} && {})".format, below, below),
        st.builds("({} || {})".format, below, below),
        st.builds("!({})".format, below),
        st.builds(f"{{}}.all({variable}, {{}})".format, lists, body),
        st.builds(f"{{}}.exists({variable}, {{}})".format, lists, body),
        st.builds(f"{{}}.exists_one({variable}, {{}})".format, lists, body),
        st.builds("{}.contains({})".format, strings, strings),
        st.builds("{} == {}".format, strings, strings),
        st.builds("size({}) > 2".format, lists),
    )


@st.composite
def _objects(draw: st.DrawFn) -> dict[str, Any]:
    items = draw(st.sampled_from([120, 20, 3, 1, 0]))  # hostile first: shrinking ends small
    short = st.text(alphabet="abo,r", max_size=6)
    return {
        "object": {
            "l": list(range(items)),
            "ls": draw(st.lists(short, max_size=items if items < 20 else 20)) * (items // 20 or 1),
            "s": draw(st.sampled_from(["o" * 100_000, "x" * 10_000, "wor" * 30, "ab,or", ""])),
            "t": draw(st.sampled_from(["", "o", "or", "x" * 10])),
            "m": draw(st.dictionaries(short, short, max_size=5)),
            "n": draw(st.integers(0, 5)),
        }
    }


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(expression=_bools(3), variables=_objects())
def test_generated_the_bound_holds_and_the_default_backend_answers_as_cel_python(
    expression: str, variables: dict[str, Any]
) -> None:
    measured = counted(expression, variables)
    if measured is None:  # cel-python refuses it (a mixed literal): never evaluated
        return
    _, spent = measured
    exact, static = bounds(expression, variables)
    for found in (exact, static):
        assert found is None or found.cost >= spent, (expression, found, spent)
    assert outcome(ROUTED, expression, variables) == outcome(PYTHON, expression, variables)


def test_the_hostile_rule_is_stopped_at_kubernetes_cost_limit_on_the_default_backend(
    tmp_path: Path,
) -> None:
    """A comparison of two 2,000-item lists for each of 9,000 items: about 1,900,000 in
    Kubernetes' count, past its per-call limit (cel-expr ran it to its end, about 2.3 s). The
    default backend's bound sees it may pass the limit, and cel-python counts and stops it
    there: the API server's error, a denial under failurePolicy Fail."""
    bundle = bundle_with(tmp_path, HOSTILE_RULE, f"action: deny\n{MATCH}", "cel-expr")
    decision = review(sync_request(hostile(9000), None, bundle), bundle)
    assert [v.message for v in decision.violations if v.rule == "custom"] == [
        f"validations[0] could not be evaluated: {COST_EXCEEDED} "
        f"(Kubernetes' per-expression {cost.PER_CALL_LIMIT:,})"
    ]
    assert not decision.allowed


def test_a_small_object_stays_on_cel_expr() -> None:
    """Within the limit the default backend evaluates on cel-expr: cel-python is not even
    made."""
    engine = RoutedBackend()
    program = engine.compile(HOSTILE_RULE.split("expression: ")[1].split("\n")[0])
    variables = {"object": hostile(3)}
    assert engine.evaluate(program, engine.activation(variables)) is True
    assert engine.route(program, engine.activation(variables)) is not None
    assert engine._python is None


@pytest.mark.parametrize("backend", ["cel-expr", "cel-python"])
def test_match_conditions_share_kubernetes_budget_for_them(tmp_path: Path, backend: str) -> None:
    """Three matchConditions of about 960,000 each (32 regular expression searches of 100,000
    characters): each within the per-call limit, the third past the 2,500,000 Kubernetes gives
    a policy's matchConditions together; on the default backend the first two ran on cel-expr
    within their bounds, and were counted exactly before the third."""
    search = "object.spec.l.all(x, !object.spec.s.matches(object.spec.t))"
    rule = (
        "matchConditions:\n"
        + "".join(f'  - "{search} || {i} < 0"\n' for i in range(3))
        + "validations:\n  - expression: 'false'\n    message: matched\n"
    )
    bundle = bundle_with(tmp_path, rule, f"action: deny\n{MATCH}", backend)
    spec = {**DEPLOYMENT["spec"], "l": list(range(32)), "s": "x" * 100_000, "t": "y" * 10}
    decision = review(sync_request({**DEPLOYMENT, "spec": spec}, None, bundle), bundle)
    assert [v.message for v in decision.violations if v.rule == "custom"] == [
        f"matchConditions[2] could not be evaluated: {cost.OUT_OF_BUDGET}"
    ]


def test_a_proof_answers_only_where_kubernetes_would_finish() -> None:
    """300,000 items visited at about 5 each: past the per-call limit, where the API server
    stops the evaluation; the proof no longer says it passes (the engine decides)."""
    proof = compile_proof(["object.l.all(x, x >= 0)"], VARIABLES)
    assert proof is not None
    assert proof.holds({"object": {"l": list(range(10))}})
    assert not proof.holds({"object": {"l": list(range(300_000))}})


def test_bounds_spent_are_replaced_by_counts_when_settled() -> None:
    with cost.policy_budget(100):
        cost.reserve(60, lambda: 10)
        assert cost.remaining() == 40
        assert cost.settle()
        assert cost.remaining() == 90
        assert not cost.settle()  # nothing reserved since
    assert cost.remaining() is None


def test_the_all_pass_fast_path_never_hands_an_evaluation_to_cel_python() -> None:
    engine = RoutedBackend()
    program = engine.compile("object.l.all(x, !object.s.contains(object.t))")
    with pytest.raises(CelEvalError, match="cost bound"):
        engine.evaluate_bounded(program, engine.activation(_spread_like(200)))
    assert engine._python is None
    assert engine.evaluate_bounded(program, engine.activation(_spread_like(2))) is True


def _spread_like(items: int) -> dict[str, Any]:
    return {"object": {"l": list(range(items)), "s": "x" * 100_000, "t": "y" * 10}}


_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=40),
    st.binary(max_size=40),
)


def _shape(shape: bound.Shape) -> tuple[Any, ...]:
    inner = shape.item() if isinstance(shape, bound.Abstract) and shape._items else None
    return (shape.size, shape.weight, None if inner is None else _shape(inner))


@settings(max_examples=60, deadline=None)
@given(st.lists(_SCALAR, max_size=30))
def test_a_list_of_scalars_is_summarised_as_its_items_joined(values: list[Any]) -> None:
    """The summary of a list of scalars made without a shape per item is the join of its
    items' shapes: the same sizes and weights the walk reads."""
    items = [bound.summary(v, {}) for v in values]
    joined = bound.join_all(items) if items else None
    expected = (
        max(len(values), 1),
        sum(s.weight for s in items),
        None if joined is None else _shape(joined),
    )
    assert _shape(bound.summary(values, {})) == expected


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(expression=_bools(3), variables=_objects())
def test_generated_the_collapsed_parse_gives_the_parses_own_bounds(
    expression: str, variables: dict[str, Any]
) -> None:
    """A plan walks its parse without the single-child precedence levels (the fast path):
    the same exact and static bounds as the walk of the parse as it is, on hostile sizes too."""
    from webhook.engine.cel import grammar  # noqa: PLC0415

    parsed = grammar.parse(expression)
    sizes = bound.Sizes(variables)
    assert sizes.total is not None
    plan = bound.Plan(parsed)
    wide = bound._Any(-(-sizes.total // 1024) * 1024)
    assert plan.exact(sizes) == bound.walk(parsed, sizes.known), expression
    assert plan.static(sizes.total) == bound.walk(parsed, lambda name: wide), expression


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(expression=_bools(3), activations=st.lists(_objects(), min_size=2, max_size=4))
def test_generated_a_kept_exact_walk_answers_only_as_a_walk_of_its_own_would(
    expression: str, activations: list[dict[str, Any]]
) -> None:
    """A plan keeps its recent exact walks and answers from one when an activation gives every
    answer that walk read (the fast path): over activations of generated, hostile sizes one
    after the other, every answer is the one a fresh walk gives."""
    scalars = "[object.s, object.t, object.n].exists(x, string(x).contains(object.t))"
    for text in (expression, f"({expression}) && {scalars}"):  # scalars' summaries read too
        plan, fresh = bound.plan(text), bound.plan(text)
        assert plan is not None and fresh is not None
        for variables in [*activations, *activations]:  # the second round: mostly kept walks
            walked = bound.walk(fresh._tree, bound.Sizes(variables).known)  # nothing kept
            assert plan.exact(bound.Sizes(variables)) == walked, text


def test_a_fingerprint_is_of_its_own_shape_when_shapes_are_made_anew() -> None:
    """A scalar's summary is made anew at each read and dropped after: the fingerprint kept for
    one must never be taken for the next, which may get its memory (and its id)."""
    sizes = bound.Sizes({"object": {}})
    texts = ["a", "b" * 500, "c" * 9, "d" * 70_000]
    prints = [sizes.fingerprint(bound.summary(text, sizes.memo)) for text in texts]
    assert [p[0] for p in prints] == [1, 500, 9, 70_000]

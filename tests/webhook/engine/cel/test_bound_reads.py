"""How the exact cost bound reads a request's own values, and the proofs' replay of it.

The shipped rules read a pod template wherever the kind keeps it
(``[object.kind == 'Pod' ? object.spec : object.spec.template.spec].all(s, ...)``), then each
container. The exact walk reads such a value where the expression reads it: a conditional of
two request values is either of them (``bound.Either``), a short list's items and a small map's
entries are read one by one, and only a longer one (or one a deeper nesting would multiply) is
summarised whole. A proof's plans answer together from a recent request's answer where this
request reads alike (``replay.Plans``).

Generated here: pod-template-shaped rules over requests of generated sizes, up to hostile ones
(hundreds of containers, a 100,000-character image among a few, a 30-deep nesting of short lists, a
tenant's hundreds of registries), checked as ``test_bound.py`` checks its expressions: the
bound is never below cel-python's count (the count the cost oracle holds to the API
server's), and the default backend answers as cel-python. Time is bounded by construction: at
most ``EXAMPLES`` examples, every evaluation stopped within 10,000 comprehension iterations,
and the walks' questions to a request do not grow with its sizes (asserted).
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.webhook.engine.cel.boundcheck import PYTHON, ROUTED, bounds, counted, outcome
from webhook.engine.cel import bound, cost, grammar, replay

EXAMPLES = 80
BOUNDED = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

POD = "[object.kind == 'Pod' ? object.spec : object.spec.template.spec]"
BODIES = [
    "c.image.startsWith('reg')",
    "tenant.registries.exists(r, c.image.startsWith(r))",
    "!has(c.req) || c.req.all(k, k.size() < 10)",
    "['cpu', 'memory'].all(r, !(r in c.req) || string(c.req[r]).size() < 5)",
    "c.ports.all(p, p >= 0)",
    "!has(c.env) || c.env.exists(e, e == 'a')",
    "c.image + 'x' != c.image",
]
OUTER = [
    POD + ".all(s, s.containers.all(c, {}))",
    POD + "[0].containers.filter(c, {}).size() >= 0",
    POD + ".all(s, s.containers.map(c, c).exists(c, {}))",
    "(object.kind == 'Pod' ? object.spec.containers : object.spec.template.spec.containers)"
    ".exists_one(c, {})",
]
DEEP = "object.deep.all(a, a.all(b, b.all(c, c.all(d, d.all(e, e.all(f, size(f) >= 0))))))"


def _rules() -> st.SearchStrategy[str]:
    body = st.sampled_from(BODIES)
    single = st.one_of(
        st.builds(lambda outer, inner: outer.format(inner), st.sampled_from(OUTER), body),
        st.just(DEEP),
    )
    return st.one_of(
        single,
        st.builds("({} && {})".format, single, single),
        st.builds("({} || {})".format, single, single),
    )


def _nested(depth: int) -> Any:
    return (
        1
        if depth == 0
        else [_nested(depth - 1), _nested(depth - 1)]
        if depth < 7
        else [_nested(depth - 1)]
    )


@st.composite
def _requests(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.sampled_from([300, 5, 4, 1, 0]))  # hostile first; 4: the last read one by one
    container = st.fixed_dictionaries(
        {
            "image": st.sampled_from(["long", "reg.example/app:1", "", "reg"]),
            "ports": st.lists(st.integers(0, 9), max_size=6),
        },
        optional={
            "req": st.dictionaries(
                st.sampled_from(["cpu", "memory", "gpu", "y" * 50]),
                st.sampled_from(["100m", "", "1Gi", "7" * 40]),
                max_size=4,
            ),
            "env": st.lists(st.sampled_from(["a", "b", "z" * 30]), max_size=6),
        },
    )
    distinct = draw(st.lists(container, min_size=min(count, 1), max_size=min(count, 5)))
    long = "x" * (100_000 if count <= 5 else 300)  # made here: a strategy's repr stays short
    distinct = [{**c, "image": long} if c["image"] == "long" else c for c in distinct]
    containers = (distinct * count)[:count] if distinct else []
    pod = {"containers": containers}
    kind = draw(st.sampled_from(["Pod", "Deployment"]))
    spec = pod if kind == "Pod" else {"replicas": 3, "template": {"spec": pod}}
    registries = draw(st.sampled_from([["reg"], ["reg", "registry.k8s.io"], ["q" * 20] * 300, []]))
    return {
        "object": {"kind": kind, "spec": spec, "deep": _nested(draw(st.sampled_from([0, 3, 30])))},
        "tenant": {"registries": registries},
    }


@BOUNDED
@given(expression=_rules(), variables=_requests())
def test_generated_pod_template_rules_are_bounded_at_least_as_cel_python_counts(
    expression: str, variables: dict[str, Any]
) -> None:
    """The exact walk of a request's own values (either side of a conditional, short lists
    and small maps item by item) is never below cel-python's count, nor the static bound."""
    measured = counted(expression, variables)
    assert measured is not None, expression
    _, spent = measured
    exact, static = bounds(expression, variables)
    for found in (exact, static):
        assert found is None or found.cost >= spent, (expression, found, spent)
    assert outcome(ROUTED, expression, variables) == outcome(PYTHON, expression, variables)


def _fresh(expressions: list[str]) -> tuple[bound.Plan, ...]:
    return tuple(bound.Plan(grammar.parse(e)) for e in expressions)


@BOUNDED
@given(
    expressions=st.lists(_rules(), min_size=1, max_size=4),
    requests=st.lists(_requests(), min_size=2, max_size=4),
)
def test_generated_a_proofs_plans_answer_as_fresh_plans_of_their_own(
    expressions: list[str], requests: list[dict[str, Any]]
) -> None:
    """A proof's plans answer from a recent request's answer when this one reads alike (the
    fast path): over requests of generated, hostile sizes one after the other, twice (the
    second round mostly replayed), every answer is that of fresh plans walking each request
    anew: never "fits" where the walks say it does not. The questions asked of a request are
    not more for a hostile one (a request's size costs a summary, not a question per item)."""
    plans = replay.Plans(_fresh(expressions))
    for variables in [*requests, *requests]:
        sizes = bound.Sizes(variables)
        walked, _ = replay._plans_fit(_fresh(expressions), bound.Sizes(variables))
        assert plans.fit(sizes) == walked, expressions
        assert replay.plans_fit(plans, variables) == walked, expressions
        assert len(sizes._answers) <= 120 * len(expressions), len(sizes._answers)


def test_a_conditional_of_two_request_values_reads_only_what_the_rule_reads() -> None:
    """``[kind == 'Pod' ? object.spec : object.spec.template.spec]``: the containers of either
    spec, not all of both specs summarised and joined (a Deployment's replicas, selector and
    labels are never read), and the one container's fields where the rule reads them."""
    container = {"image": "reg.example/app:1", "ports": [80], "resources": {"x": "y" * 9000}}
    variables = {
        "object": {
            "kind": "Deployment",
            "spec": {"replicas": 3, "template": {"spec": {"containers": [container]}}},
            "metadata": {"labels": {f"k{i}": "v" * 200 for i in range(40)}},
        },
        "tenant": {"registries": ["reg"]},
    }
    rule = POD + f".all(s, s.containers.all(c, {BODIES[1]}))"
    plan = bound.plan(rule)
    assert plan is not None
    sizes = bound.Sizes(variables)
    found = plan.exact(sizes)
    assert found is not None and found.cost < 200, found
    assert not [a for a in sizes._answers if a.kind == "summary"]  # nothing summarised whole
    read = {a.question[0][-1] for a in sizes._answers if a.question[0]}
    assert ("field", "resources") not in read and ("field", "replicas") not in read, read
    measured = counted(rule, variables)
    assert measured is not None and found.cost >= measured[1]
    assert found.cost <= cost.PER_CALL_LIMIT


_ODD = [
    None,
    True,
    0,
    7,
    1.5,
    "",
    "x" * 300,
    [],
    [1, "a"],
    {},
    {"a": 1},
    [[1]] * 5,
    {"containers": 1},
]
"""What a request's writer may put anywhere instead: each type a walk's question tells apart."""


@st.composite
def _tampered(draw: st.DrawFn) -> dict[str, Any]:
    """A generated request with a few of its values, at any depth, replaced by another type or
    size, or removed: the places a kept trace reads, answered otherwise."""
    variables = copy.deepcopy(draw(_requests()))  # its lists may be the strategies' own
    for _ in range(draw(st.integers(0, 3))):
        holder: Any = variables
        while True:
            keys = list(holder) if isinstance(holder, dict) else list(range(len(holder)))
            if not keys:
                break
            key = draw(st.sampled_from(keys))
            below = holder[key]
            if isinstance(below, dict | list) and below and draw(st.booleans()):
                holder = below
                continue
            if isinstance(holder, dict) and draw(st.booleans()):
                del holder[key]
            else:
                holder[key] = copy.deepcopy(draw(st.sampled_from(_ODD)))
            break
    return variables


@BOUNDED
@given(
    expressions=st.lists(_rules(), min_size=1, max_size=3),
    kept=st.lists(_requests(), min_size=1, max_size=3),
    others=st.lists(_tampered(), min_size=1, max_size=4),
)
def test_generated_a_traces_replayer_answers_as_its_replay(
    expressions: list[str], kept: list[dict[str, Any]], others: list[dict[str, Any]]
) -> None:
    """The function a kept trace becomes (``replay.replayer``) answers every request as
    ``Sizes.replays`` of that trace does: the requests it was kept from, the others generated,
    and the same with values at any depth of another type, size or removed. So a proof's
    plans answer with the replayer exactly as they answered with the tables."""
    for variables in kept:
        _, trace = replay._plans_fit(_fresh(expressions), bound.Sizes(variables))
        if trace is None:
            continue
        replays = replay.replayer(trace)
        for other in [variables, *kept, *others]:
            assert replays(bound.Sizes(other)) == bound.Sizes(other).replays(trace), expressions


@BOUNDED
@given(
    proofs=st.lists(st.lists(_rules(), min_size=1, max_size=2), min_size=2, max_size=4),
    requests=st.lists(st.one_of(_requests(), _tampered()), min_size=2, max_size=4),
)
def test_generated_proofs_answered_together_answer_as_each_walked_anew(
    proofs: list[list[str]], requests: list[dict[str, Any]]
) -> None:
    """Several proofs' plans answered by one replay of the union of what each read
    (``replay.Together``, a review's proofs) give each proof's answer as fresh plans walking
    the request anew: over generated and tampered requests one after the other, twice (the
    second round replayed)."""
    together = replay.Together([replay.Plans(_fresh(expressions)) for expressions in proofs])
    for variables in [*requests, *requests]:
        walked = tuple(replay._plans_fit(_fresh(e), bound.Sizes(variables))[0] for e in proofs)
        assert together.fit(variables) == walked, proofs

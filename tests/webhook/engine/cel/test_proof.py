"""Proofs (``webhook.engine.cel.proof``) are sound against the engine: a proof that holds is an
expression cel-expr evaluates to true; and on the objects the shipped rules see, they hold
whenever the engine says true, so the engine is rarely needed."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from webhook.bundle.model import Bundle
from webhook.engine.cel import Backend, CelCompileError, CelEvalError, grammar
from webhook.engine.cel.backend import VARIABLES
from webhook.engine.cel.bound import Plan
from webhook.engine.cel.engines import make_backend
from webhook.engine.cel.proof import compile_proof
from webhook.engine.cel.values import mended

ALL = frozenset(VARIABLES)


@pytest.fixture(scope="module")
def engine() -> Backend:
    return make_backend("cel-expr")


def engine_says(engine: Backend, expression: str, variables: dict[str, Any]) -> object:
    """cel-expr's value, or the exception class for an error, on the variables as a review
    hands them to an engine (``mended``: a value no engine holds, here ``huge``, replaced for
    the rules that do not read it)."""
    try:
        return engine.evaluate(engine.compile(expression), engine.activation(mended(variables)))
    except (CelEvalError, CelCompileError) as exc:
        return type(exc)


def _compiles(engine: Backend, expression: str) -> bool:
    try:
        engine.compile(expression)
    except CelCompileError:
        return False
    return True


OBJECT = {
    "kind": "Deployment",
    "flag": True,
    "one": 1,
    "one_point_oh": 1.0,
    "huge": 2**63,  # orjson gives ints up to 2**64 - 1; cel-expr makes these a uint
    "name": "web:1.2",
    "accent": "é:b",
    "empty": None,
    "labels": {"app": "web", "tier": ""},
    "items": [{"image": "a:1"}, {"image": "b:latest"}],
    "numbers": [1, 2, 3],
    "mixed": [1, "1", True],
}

# (expression, proven): proven is what holds() must say; wherever it says True, the engine must
# say true as well (checked in the test). False means "not proven": the engine decides, whether
# CEL's answer is false, an error, or true through a rule the translation leaves to the engine.
TABLE = [
    ("object.kind == 'Deployment'", True),
    ("object.kind != 'FederatedHPA'", True),
    ("object.kind == 'FederatedHPA'", False),
    ("object.one == 1", True),
    ("object.flag == true", True),
    ("object.flag == 1", False),  # a bool is not an int in CEL
    ("object.one == true", False),
    ("object.one_point_oh == 1", False),  # int against double: the engine's to decide
    ("object.one_point_oh == 1.0", True),
    ("object.huge > 1", False),  # beyond int64
    ("object.one < 2 && object.one >= 1 && object.one <= 1 && object.one > 0", True),
    ("object.name < 'x'", True),
    ("object.name < 1", False),
    ("object.missing == 'x'", False),  # no such key: an error in CEL
    ("false && object.missing == 'x'", False),
    ("object.missing == 'x' || true", False),  # true in CEL; left to the engine
    ("true || object.missing == 'x'", True),
    ("!has(object.missing)", True),
    ("has(object.labels.app)", True),
    ("has(object.items.app)", False),  # has() on a list: an error
    ("has(object.empty.x)", False),  # has() on null: an error
    ("object.empty == null", True),
    ("object.labels == null", False),
    ("'app' in object.labels", True),
    ("'x' in object.labels", False),
    ("1 in object.numbers", True),
    ("'1' in object.mixed", False),  # a list of mixed types: the engine's
    ("object.labels['tier'] == ''", True),
    ("object.labels['none'] == ''", False),
    ("object.numbers[2] == 3", True),
    ("object.numbers[3] == 3", False),
    ("object.items.all(i, i.image.lastIndexOf(':') > 0)", True),
    ("object.items.all(i, !i.image.endsWith(':latest'))", False),
    ("object.items.exists(i, i.image.endsWith(':latest'))", True),
    ("object.items.all(i, i.tag == 'x')", False),
    ("object.labels.all(k, k.size() < 5)", True),  # a map ranges over its keys
    ("object.numbers.exists(n, n == 2) && object.numbers.all(n, n > 0)", True),
    ("['app'].all(k, k in object.labels && object.labels[k] == 'web')", True),
    ("['app', 'none'].all(k, k in object.labels)", False),
    ("['web:1.2', dyn(1)].exists(x, x == object.name)", True),  # mixed: tested one by one
    ("[1, 'web:1.2'].exists(x, x == object.name)", False),  # 1 == a string: the engine's
    ("['a', 'b'].exists(x, x == 1)", False),
    ("object.items.all(i, ['a:1', 'b:latest'].exists(x, x == i.image))", True),
    ("object.accent.indexOf(':') == 1", True),  # code points, not bytes
    ("object.accent.lastIndexOf('b') == 2", True),
    ("object.name.contains(':1')", True),
    ("object.name.startsWith('web')", True),
    ("size(object.items) == 2 && object.name.size() == 7", True),
    ("string(object.one) == '1' && string(object.flag) == 'true'", True),
    ("string(object.one_point_oh) == '1'", False),  # double formatting: the engine's
    ("object.one == 1 ? object.name == 'web:1.2' : object.missing", True),
    ("object.one == 2 ? object.missing : object.kind == 'Deployment'", True),
    ("object.name ? true : true", False),  # a non-bool condition: an error
    ("-object.one == -1", True),
    ("quantity('500m').isLessThan(quantity('1'))", True),
    ("quantity('500m') == quantity('0.5')", True),
    ("quantity(object.name).isLessThan(quantity('1'))", False),  # not a quantity: an error
    ("quantity('1Gi').isGreaterThan(quantity('1Mi'))", True),
    ("isQuantity('12Mi') && !isQuantity('12 apples')", True),
    ("r'a\\b'.size() == 3", True),
    ("tenant.name == 'team-a'", True),
    # Kubernetes: isInteger is AsInt64 succeeding, false for a whole number beyond int64
    ("quantity('9999999999999999999999999999999999999G').isInteger()", False),
    ("!quantity('9999999999999999999999999999999999999G').isInteger()", True),
]


@pytest.mark.parametrize(("expression", "proven"), TABLE, ids=[t[0] for t in TABLE])
def test_table(engine: Backend, expression: str, proven: bool) -> None:
    variables = {"object": OBJECT, "tenant": {"name": "team-a"}}
    proof = compile_proof(expression, ALL)
    assert proof is not None, "in the subset"
    assert proof.holds(dict(variables)) is proven
    if proven:
        assert engine_says(engine, expression, variables) is True


@pytest.mark.parametrize(
    "expression",
    [
        "object.one + 1 == 2",  # arithmetic
        "object.items.map(i, i.image).size() == 2",
        "object.items.filter(i, true).size() == 2",
        "object.items.exists_one(i, true)",
        "object.name.matches('^web')",  # RE2 is not Python's re
        "'a\\nb'.size() == 3",  # escapes
        "{'a': 1}.size() == 1",
        "object.one == 1u",
        "b'abc'.size() == 3",
        "unknown.x == 1",
        "object.name.split(':').size() == 2",
        "'''long''' == 'long'",
    ],
)
def test_outside_the_subset_there_is_no_proof(expression: str) -> None:
    assert compile_proof(expression, ALL) is None


def test_one_proof_for_several_expressions_holds_when_all_do() -> None:
    variables = {"object": OBJECT}
    both = compile_proof(["object.one == 1", "has(object.labels)"], ALL)
    one_false = compile_proof(["object.one == 1", "object.kind == 'x'"], ALL)
    assert both is not None and both.holds(variables)
    assert one_false is not None and not one_false.holds(variables)
    assert compile_proof(["object.one == 1", "object.one + 1 == 2"], ALL) is None
    assert compile_proof([], ALL) is None


def test_a_proof_names_what_it_reads() -> None:
    proof = compile_proof("object.items.all(i, tenant.registries.exists(r, i.startsWith(r)))", ALL)
    assert proof is not None
    assert proof.variables == {"object", "tenant"}


def test_a_comprehension_leaves_the_variables_as_they_were() -> None:
    proof = compile_proof("object.numbers.all(object, object > 0) && object.one == 1", ALL)
    variables = {"object": OBJECT}
    assert proof is not None and proof.holds(variables)
    assert variables == {"object": OBJECT}


def test_literals_cannot_smuggle_python() -> None:
    proof = compile_proof('object.name == \'" + __import__("os").getcwd() + "\'', ALL)
    assert proof is not None and not proof.holds({"object": OBJECT})
    assert "__import__" not in proof.source.replace(repr('" + __import__("os").getcwd() + "'), "")


# ---- differential: random expressions over random JSON, against cel-expr

SCALARS = st.one_of(
    st.integers(min_value=-3, max_value=3),
    st.sampled_from([2**63 - 1, 2**63, -(2**63), 2**64 - 1]),
    st.sampled_from([0.0, 1.0, -1.5, 2.0]),
    st.booleans(),
    st.none(),
    st.sampled_from(["", "a", "b", "1", "a:b", "é", "true", "null"]),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.fixed_dictionaries({}, optional={"x": inner, "y": inner}),
    ),
    max_leaves=6,
)
STRINGS = st.sampled_from(["", "a", "b", "ab", "a:b", "é:b", "1", "true"])
INTS = st.one_of(st.integers(-3, 3), st.sampled_from([2**63 - 1, 2**63, -(2**63)]))
# Fields of known types, and one (``any``) of any type, so that type confusion is tried too.
OBJECTS = st.fixed_dictionaries(
    {
        "s": STRINGS,
        "t": STRINGS,
        "i": INTS,
        "j": INTS,
        "d": st.sampled_from([0.0, 1.0, -1.5, 2.0]),
        "b": st.booleans(),
        "n": st.none(),
        "m": st.fixed_dictionaries(
            {}, optional={"x": st.one_of(STRINGS, st.none()), "y": st.one_of(INTS, st.none())}
        ),
        "l": st.lists(STRINGS, max_size=3),
        "li": st.lists(INTS, max_size=3),
        "any": JSON,
    }
)
STRING_LITERALS = st.sampled_from(["''", "'a'", "'b'", "'a:b'", "':'", "'é'", "'1'"])
INT_LITERALS = st.sampled_from(["0", "1", "-1", "2", "9223372036854775807"])


def _typed(depth: int, bound: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
    """Strategies for str, int and bool expressions over OBJECTS (``any`` anywhere)."""
    strings = [STRING_LITERALS, st.sampled_from(["object.s", "object.t", "object.m.x"])]
    ints = [INT_LITERALS, st.sampled_from(["object.i", "object.j", "object.m.y"])]
    anything = [st.sampled_from(["object.any", "object.any.x", "object.n", "object.d"])]
    strings += [st.just(name) for name, kind in bound if kind == "str"]
    ints += [st.just(name) for name, kind in bound if kind == "int"]
    anything += [st.just(name) for name, kind in bound if kind == "any"]
    s, i, a = st.one_of(strings), st.one_of(ints), st.one_of(anything)
    if depth > 0:
        below = _typed(depth - 1, bound)
        s = st.one_of(
            s,
            below["int"].map(lambda e: f"string({e})"),
            st.tuples(st.sampled_from(["object.l", "object.any"]), below["int"]).map(
                lambda t: f"{t[0]}[{t[1]}]"
            ),
        )
        i = st.one_of(
            i,
            below["str"].map(lambda e: f"size({e})"),
            st.sampled_from(["object.l", "object.li", "object.m"]).map(lambda e: f"{e}.size()"),
            st.tuples(below["str"], st.sampled_from(["indexOf", "lastIndexOf"]), below["str"]).map(
                lambda t: f"{t[0]}.{t[1]}({t[2]})"
            ),
            below["int"].map(lambda e: f"-({e})"),
        )
    booleans: list[st.SearchStrategy[str]] = [
        st.sampled_from(["true", "false", "object.b", "has(object.m.x)", "has(object.any.x)"]),
        st.tuples(s, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), s).map(" ".join),
        st.tuples(i, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), i).map(" ".join),
        st.tuples(st.one_of(s, i, a), st.sampled_from(["==", "!=", "<"]), st.one_of(s, i, a)).map(
            " ".join
        ),
        st.tuples(s, st.sampled_from(["startsWith", "endsWith", "contains"]), s).map(
            lambda t: f"{t[0]}.{t[1]}({t[2]})"
        ),
        st.tuples(s, st.sampled_from(["object.m", "object.l", "object.any"])).map(
            lambda t: f"{t[0]} in {t[1]}"
        ),
        st.tuples(i, st.sampled_from(["object.li", "[1, 2]", "object.any"])).map(
            lambda t: f"{t[0]} in {t[1]}"
        ),
    ]
    b = st.one_of(booleans)
    if depth > 0:
        below = _typed(depth - 1, bound)
        name = f"v{len(bound)}"
        ranges = st.sampled_from(
            [("object.l", "str"), ("object.li", "int"), ("object.m", "str"), ("object.any", "any")]
        )
        comprehension = ranges.flatmap(
            lambda r: st.tuples(
                st.just(r[0]),
                st.sampled_from(["all", "exists"]),
                _typed(depth - 1, (*bound, (name, r[1])))["bool"],
            ).map(lambda t: f"{t[0]}.{t[1]}({name}, {t[2]})")
        )
        b = st.one_of(
            b,
            below["bool"].map(lambda e: f"!({e})"),
            st.tuples(below["bool"], st.sampled_from(["&&", "||"]), below["bool"]).map(
                lambda t: f"({t[0]}) {t[1]} ({t[2]})"
            ),
            st.tuples(below["bool"], below["bool"], below["bool"]).map(
                lambda t: f"({t[0]}) ? ({t[1]}) : ({t[2]})"
            ),
            comprehension,
        )
    return {"str": s, "int": i, "bool": b}


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expression=_typed(2)["bool"], value=OBJECTS)
def test_a_proof_that_holds_is_true_in_cel(engine: Backend, expression: str, value: Any) -> None:
    variables = {"object": value}
    for candidate in (expression, f"!({expression})"):  # one of them is true when either is
        assume(_compiles(engine, candidate))  # a bundle holds only expressions that compile
        proof = compile_proof(candidate, ALL)
        assume(proof is not None)
        assert proof is not None
        if proof.holds(dict(variables)):
            assert engine_says(engine, candidate, variables) is True, proof.source


# ---- the shipped rules, on the objects they see


def _container() -> st.SearchStrategy[dict[str, Any]]:
    quantities = st.sampled_from(["100m", "500m", "1", "2", "512Mi", "1Gi", "12 apples", ""])
    resources = st.dictionaries(
        st.sampled_from(["requests", "limits"]),
        st.dictionaries(
            st.sampled_from(["cpu", "memory"]),
            st.one_of(quantities, st.integers(0, 3), st.none()),
            max_size=2,
        ),
        max_size=2,
    )
    images = st.sampled_from(
        [
            "registry.example.com/platform/web:1.2",
            "registry.example.com/platform/web",
            "registry.example.com/platform/web:latest",
            "registry.example.com:5000/platform/web",
            "mirror.example.cn/platform/app@sha256:abc",
            "docker.io/library/nginx:1.25",
            "registry.example.com/platform/web:",
        ]
    )
    return st.fixed_dictionaries(
        {"name": st.just("app"), "image": images},
        optional={
            "resources": st.one_of(resources, st.none()),
            "securityContext": st.one_of(
                st.none(), st.fixed_dictionaries({}, optional={"privileged": st.none()})
            ),
        },
    )


def _deployments() -> st.SearchStrategy[dict[str, Any]]:
    template = st.fixed_dictionaries(
        {"containers": st.lists(_container(), min_size=1, max_size=3)},
        optional={
            "initContainers": st.one_of(st.lists(_container(), max_size=2), st.none()),
            "hostNetwork": st.none(),
        },
    )
    spec = st.fixed_dictionaries(
        {"template": st.fixed_dictionaries({"spec": template})},
        optional={
            "replicas": st.one_of(st.integers(0, 80), st.just(2**63), st.booleans(), st.none()),
            "maxReplicas": st.integers(0, 80),
        },
    )
    return st.fixed_dictionaries(
        {"kind": st.sampled_from(["Deployment", "FederatedHPA"]), "spec": spec}
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obj=_deployments(), tenant_name=st.sampled_from(["team-a", "team-b", None]))
def test_shipped_rules_proofs_agree_with_the_engine(
    bundle: Bundle, engine: Backend, obj: dict[str, Any], tenant_name: str | None
) -> None:
    runtime = bundle.cel_runtime
    assert runtime is not None and runtime.proofs, "the shipped rules have proofs"
    tenant = runtime.tenants.get(tenant_name, {}) if tenant_name else {}
    variables = {"object": obj, "tenant": tenant}
    for rule_id, proof in runtime.proofs.items():
        says = [engine_says(engine, expression, variables) for expression in proof.expressions]
        if proof.holds(dict(variables)):
            assert all(said is True for said in says), (rule_id, says)
        elif all(said is True for said in says):  # complete but for ints beyond int64 and
            # a null compared with another type (``null != true``: the engine's)
            assert obj["spec"].get("replicas") == 2**63 or _holds_a_null(obj), (rule_id, says)


def _holds_a_null(value: Any) -> bool:
    if isinstance(value, dict):
        return any(item is None or _holds_a_null(item) for item in value.values())
    if isinstance(value, list):
        return any(item is None or _holds_a_null(item) for item in value)
    return False


class _ParsedPlan(Plan):
    """A plan that walks the parse as it is, without the collapsed precedence levels."""

    def __init__(self, tree: Any) -> None:
        super().__init__(tree)
        self._tree = tree


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    obj=_deployments(),
    copies=st.sampled_from([1, 2, 40, 400]),  # hostile first among the large
    padding=st.sampled_from([0, 10, 200_000]),
)
def test_shipped_rules_proofs_answer_the_same_with_the_bounds_fast_paths(
    bundle: Bundle, obj: dict[str, Any], copies: int, padding: int
) -> None:
    """The proofs' cost check walks each expression's collapsed parse and answers from a kept
    exact walk where the request's sizes match it (the fast paths; the bundle's plans keep
    theirs from one example to the next): on generated Deployments, up to hundreds of
    containers and images of 200,000 characters, every proof answers as it does with fresh
    plans walked on the parse as it is."""
    runtime = bundle.cel_runtime
    assert runtime is not None and runtime.proofs
    template = obj["spec"]["template"]["spec"]
    template["containers"] = [
        {**c, "image": c["image"] + "x" * padding} for c in template["containers"] * copies
    ]
    variables = {"object": obj, "tenant": runtime.tenants.get("team-a", {})}
    answers = []
    for proof in runtime.proofs.values():
        parsed = tuple(_ParsedPlan(grammar.parse(text)) for text in proof.expressions)
        as_parsed = replace(proof, plans=parsed)
        answers.append(proof.holds(dict(variables)))
        assert answers[-1] == as_parsed.holds(dict(variables)), proof.expressions
    assert len(answers) == len(runtime.proofs)

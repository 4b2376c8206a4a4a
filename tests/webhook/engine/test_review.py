"""review() on adversarial objects: it never raises, and the fast paths (proofs, the all-pass
conjunction) give the engine's answer, on both backends, for every value a request can carry."""

from __future__ import annotations

import copy
import functools
import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLES, POLICIES
from tests.webhook.engine.essence import essence
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle
from webhook.engine.decision import Decision
from webhook.engine.request import AdmissionRequest, parse_review
from webhook.engine.review import review

REQUESTS = {
    name: json.loads((EXAMPLES / "requests" / f"{name}.json").read_text())
    for name in (
        "deployment-replicas-by-federatedhpa-allowed",
        "deployment-update-by-argocd-allowed",
        "propagationpolicy-create-allowed",
        "clusterpropagationpolicy-by-platform-allowed",
    )
}
SYSTEM = "system:kube-controller-manager"
LAZY_AFTER = 40
"""The lazily proving bundle builds its proofs at the 40th review, well inside one run of
the property test below: it is compared with the engine before and after."""

ADVERSARIAL: list[Any] = [
    None, True, False, 0, 1, -1, 50, 51, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63) - 1,
    0.0, -0.0, 1.0, 0.5, 1e308, "", "x", "\x00", "a\x00b", "latest", ":latest", "1Gi",
    "9999999999999999999999999999999999999G", "registry.example.com/platform/web:1\x00:latest",
    "registry.example.com/platform/web\x00:1", [], {}, [None], {"a\x00": 1}, {"": None},
    [[[[[[[[[[[]]]]]]]]]]],
]  # fmt: skip


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*here, index))
    return found


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    body = copy.deepcopy(REQUESTS[draw(st.sampled_from(sorted(REQUESTS)))])
    obj = body["request"]["object"]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(obj)[1:]))
        parent = obj
        for step in path[:-1]:
            parent = parent[step]
        value = copy.deepcopy(draw(st.sampled_from(ADVERSARIAL)))
        if isinstance(parent, dict) and draw(st.booleans()):
            parent[draw(st.sampled_from(["x", "d", "image", "replicas", "a\x00"]))] = value
        else:
            parent[path[-1]] = value
    if draw(st.booleans()):
        body["request"]["userInfo"]["username"] = SYSTEM
    return body


@functools.cache
def _bundles() -> dict[str, Bundle]:
    return {
        "proofs": load_bundle(POLICIES),
        "engine": load_bundle(POLICIES, proofs=False),
        "proofs built on the way": load_bundle(POLICIES, proofs_after=LAZY_AFTER),
        "cel-python": load_bundle(POLICIES, "cel-python"),
    }


@pytest.fixture(scope="module")
def bundles() -> dict[str, Bundle]:
    return _bundles()


def _request(body: dict[str, Any]) -> AdmissionRequest | None:
    try:
        return parse_review(body)
    except Exception:
        return None


class _Named(dict[str, Bundle]):
    """The bundles, printed by name: hypothesis prints a failing example's arguments, and the
    bundles' own repr, megabytes long, raised a warning that hid the failure itself."""

    def __repr__(self) -> str:
        return f"<bundles {', '.join(self)}>"


@pytest.fixture(scope="module")
def named_bundles() -> _Named:
    return _Named(_bundles())


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(requests())
def test_fast_paths_and_backends_give_one_answer(
    named_bundles: _Named, body: dict[str, Any]
) -> None:
    request = _request(body)
    if request is None:
        return
    decisions = {name: review(request, bundle) for name, bundle in named_bundles.items()}
    expected = essence(decisions["engine"])
    assert essence(decisions["proofs"]) == expected
    assert essence(decisions["proofs built on the way"]) == expected
    python = essence(decisions["cel-python"])
    if python != expected:
        assert _stricter_only_where_has_fails(decisions["engine"], decisions["cel-python"])


def _stricter_only_where_has_fails(expr: Decision, python: Decision) -> bool:
    """The one known way the backends part (tests/oracles/cases/cel.yaml,
    has-of-a-field-of-a-scalar): has() of a field of a string, number, bool or null is false in
    Kubernetes and in cel-python (the validation then passes or fails on it), an error in
    cel-expr, which fails closed. So every rule on which they differ calls has() and errs on
    cel-expr, and cel-expr denies wherever cel-python does."""
    rules = {r.id: r for r in _bundles()["engine"].rules}

    def by_rule(decision: Decision) -> dict[str, Counter[tuple[object, ...]]]:
        found: dict[str, Counter[tuple[object, ...]]] = {}
        for entry in essence(decision)[1]:
            found.setdefault(str(entry[0]), Counter())[entry] += 1
        return found

    mine, theirs = by_rule(expr), by_rule(python)
    differing = {r for r in {*mine, *theirs} if mine.get(r) != theirs.get(r)}
    return (python.allowed or not expr.allowed) and all(
        rule in rules
        and any("has(" in v.expression for v in rules[rule].validations)
        and any(entry[3] == "error" for entry in mine.get(rule, Counter()))
        for rule in differing
    )


def test_proofs_after_n_reviews_are_built_at_the_nth() -> None:
    bundle = load_bundle(POLICIES, proofs_after=3)
    runtime = bundle.cel_runtime
    assert runtime is not None
    eager = load_bundle(POLICIES).cel_runtime
    assert eager is not None and eager.proofs  # the shipped rules have proofs
    request = parse_review(REQUESTS["deployment-update-by-argocd-allowed"])
    for _ in range(2):
        review(request, bundle)
    assert runtime.proofs == {} and runtime.proof_reads == frozenset()
    review(request, bundle)
    assert set(runtime.proofs) == set(eager.proofs)
    assert runtime.proof_reads == eager.proof_reads
    off = load_bundle(POLICIES, proofs=False, proofs_after=1)
    review(request, off)
    assert off.cel_runtime is not None and off.cel_runtime.proofs == {}


@pytest.mark.parametrize(
    ("value", "field"),
    [
        pytest.param(
            "registry.example.com/platform/web:1\x00:latest",
            "object.spec.template.spec.containers[0].image holds U+0000",
            id="nul",
        ),
        pytest.param(
            2**64, "object.spec.template.spec.containers[0].image 18446744073709551616", id="big"
        ),
    ],
)
def test_a_value_no_engine_represents_is_a_denial_naming_the_field(
    bundles: dict[str, Bundle], value: Any, field: str
) -> None:
    body = copy.deepcopy(REQUESTS["deployment-replicas-by-federatedhpa-allowed"])
    body["request"]["object"]["spec"]["template"]["spec"]["containers"][0]["image"] = value
    for bundle in bundles.values():
        decision = review(parse_review(body), bundle)
        assert not decision.allowed
        refused = [v for v in decision.violations if v.rule == "image-tag"]
        assert refused and refused[0].status == "error" and refused[0].message.startswith(field)


@pytest.mark.parametrize("user", ["pat@example.com", SYSTEM])
def test_a_broken_placement_is_a_denial_never_an_exception(
    bundles: dict[str, Bundle], user: str
) -> None:
    body = copy.deepcopy(REQUESTS["clusterpropagationpolicy-by-platform-allowed"])
    body["request"]["object"]["spec"]["placement"]["clusterAffinity"]["clusterNames"] = 1.0
    body["request"]["userInfo"]["username"] = user
    decision = review(parse_review(body), bundles["proofs"])
    if user == SYSTEM:  # no controller's job: judged as anyone's write, never an exception
        # (a clusterNames that is no list selects no cluster: Karmada's ClusterMatches)
        assert not decision.allowed and not decision.targets
        assert {v.rule for v in decision.violations} >= {"ownership.system-controller"}
    else:
        assert not decision.allowed
        assert {v.rule for v in decision.violations} >= {"tenancy.placement-scope"}


@pytest.mark.parametrize("name", sorted(REQUESTS))
def test_a_fast_path_that_raises_is_a_fault_on_the_decision_not_a_silence(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review() turned any exception of its fast paths into 'no fast path' and said nothing, so
    a broken shortcut went unseen. The full review still answers (the same decision), and the
    Decision names the fault, which the server logs and counts (fedgate_engine_faults)."""
    import webhook.engine.review as engine  # noqa: PLC0415

    bundle = load_bundle(POLICIES)
    request = _request(REQUESTS[name])
    assert request is not None
    healthy = review(request, bundle)
    assert healthy.faults == ()

    def broken(*_: object) -> None:
        raise ZeroDivisionError("a shortcut's bug")

    monkeypatch.setattr(engine, "_fast_paths", broken)
    stepped = review(request, bundle)
    assert (stepped.allowed, stepped.violations) == (healthy.allowed, healthy.violations)
    assert stepped.faults == ("fast-path: ZeroDivisionError: a shortcut's bug",)


def test_the_server_counts_engine_faults() -> None:
    from webhook.engine.decision import Decision  # noqa: PLC0415
    from webhook.shell.metrics import Metrics  # noqa: PLC0415

    metrics = Metrics()
    request = _request(REQUESTS["propagationpolicy-create-allowed"])
    assert request is not None
    metrics.observe(request, Decision.of([], faults=["fast-path: KeyError: 'x'"]), 0.001)
    text = metrics.exposition().decode()
    assert 'fedgate_engine_faults_total{where="fast-path"} 1.0' in text


def test_the_shipped_rules_proofs_build_without_a_fault() -> None:
    bundle = load_bundle(POLICIES)
    assert bundle.cel_runtime is not None
    assert bundle.cel_runtime.proofs  # proofs are built at load by default
    assert bundle.cel_runtime.proof_faults == ()


def test_a_proof_that_breaks_is_a_fault_not_outside_the_subset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """compile_proof took every exception for 'outside the subset': a bug of the translation
    went unseen. It is recorded with its rule, the rule goes to the engine, and the webhook
    counts it at load (fedgate_engine_faults{where="proof"})."""
    from webhook.engine.cel import proof  # noqa: PLC0415
    from webhook.shell.app import create_app  # noqa: PLC0415

    def broken(self: object, trees: object) -> list[str]:
        raise TypeError("a translation's bug")

    monkeypatch.setattr(proof._Translator, "function", broken)
    bundle = load_bundle(POLICIES)
    assert bundle.cel_runtime is not None
    faults = bundle.cel_runtime.proof_faults
    assert faults and all(
        f.startswith("proof: TypeError: a translation's bug (rule ") for f in faults
    )
    assert not bundle.cel_runtime.proofs
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    metrics = create_app(bundle).test_client().get("/metrics").get_data(as_text=True)
    assert f'fedgate_engine_faults_total{{where="proof"}} {float(len(faults))}' in metrics
    assert proof.compile_proof("1 == 1", ()) is None  # still no proof, still no exception

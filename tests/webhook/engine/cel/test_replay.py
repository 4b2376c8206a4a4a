"""The proofs' cost check replays a kept trace through a function made for it
(``replay.replayer``): a review decides as it did with ``Sizes.replays``' tables.

Differential: every review input of ``examples/requests/`` and ``tests/attacks/``, then a
tenant's Deployment UPDATE whose pod template the writer has changed (more containers, longer
or other-typed images, ports and requests, fields removed), each reviewed twice in a row (the
second from what the first kept), by the shipped bundle with the replayers and by another
load of it whose plans keep the table replay: the same Decision, violations and reasons
included. Time is bounded: at most ``EXAMPLES`` generated requests of at most 8 containers.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import POLICIES
from webhook.bundle.load import load_bundle
from webhook.engine.cel import bound, replay
from webhook.engine.decision import Decision
from webhook.engine.request import parse_review
from webhook.engine.review import review

ROOT = Path(__file__).resolve().parents[4]
EXAMPLES = 40
FILES = sorted([*ROOT.glob("examples/requests/*.json"), *ROOT.glob("tests/attacks/*.json")])
DEPLOYMENT = orjson.loads(
    (ROOT / "examples/requests/deployment-replicas-by-federatedhpa-allowed.json").read_bytes()
)
COMPILED = load_bundle(POLICIES)
TABLES = load_bundle(POLICIES)


def _tables(trace: bound.Trace) -> replay.Replayer:
    return lambda sizes: sizes.replays(trace)


@contextmanager
def _with_tables(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with monkeypatch.context() as patched:
        patched.setattr(replay, "replayer", _tables)
        yield


def _both(body: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> tuple[Decision, Decision]:
    compiled = review(parse_review(copy.deepcopy(body)), COMPILED)
    with _with_tables(monkeypatch):
        tables = review(parse_review(copy.deepcopy(body)), TABLES)
    return compiled, tables


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_every_review_input_is_decided_as_with_the_tables(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = orjson.loads(path.read_bytes())
    for _ in range(2):  # the second review replays what the first kept
        compiled, tables = _both(body, monkeypatch)
        assert compiled == tables, path.name


CONTAINER = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["app", "side"]),
        "image": st.one_of(
            st.sampled_from(
                ["registry.example.com/team-a/app:1.4.2", "nginx:latest", "", "x" * 5000]
            ),
            st.integers(),
            st.none(),
        ),
    },
    optional={
        "ports": st.lists(st.fixed_dictionaries({"containerPort": st.integers(0, 9)}), max_size=5),
        "resources": st.fixed_dictionaries(
            {},
            optional={
                "requests": st.dictionaries(
                    st.sampled_from(["cpu", "memory", "x" * 40]),
                    st.sampled_from(["100m", "128Mi", "", "9" * 30, 7]),
                    max_size=3,
                ),
                "limits": st.one_of(st.just("1"), st.dictionaries(st.just("cpu"), st.just("1"))),
            },
        ),
        "securityContext": st.sampled_from([{}, {"privileged": True}, [], "x"]),
    },
)


@st.composite
def _deployments(draw: st.DrawFn) -> dict[str, Any]:
    body = copy.deepcopy(DEPLOYMENT)
    spec = body["request"]["object"]["spec"]["template"]["spec"]
    spec["containers"] = draw(st.lists(CONTAINER, min_size=0, max_size=8))
    if draw(st.booleans()):
        spec["initContainers"] = draw(st.lists(CONTAINER, max_size=2))
    if draw(st.booleans()):
        body["request"]["object"]["spec"]["replicas"] = draw(st.sampled_from([0, 3, 50, "3"]))
    return body


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(bodies=st.lists(_deployments(), min_size=1, max_size=3))
def test_generated_a_tenants_deployment_is_decided_as_with_the_tables(
    bodies: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requests one after the other, twice over: the kept traces of the earlier ones are
    replayed on the later ones, with the functions and with the tables alike."""
    for body in [*bodies, *bodies]:
        compiled, tables = _both(body, monkeypatch)
        assert compiled == tables

"""pod-security-baseline against the code a member's Pod Security admission runs: Kubernetes'
k8s.io/pod-security-admission v0.35.3 (``podsecurity/``), level baseline, version latest.

Hypothesis draws pods as an attacker writes them (``podgen``: every field the baseline checks
read, edge values, containers, init and ephemeral containers, pod and container level, the
annotations) and wraps each in a kind the rule covers. Pod by pod, on both CEL backends:

- the Kubernetes checks that fail are exactly those whose validations of the rule fail (each
  validation answers one check, named by its message), and every failing validation's message
  expression gives its sentence (no fallback);
- ``review()`` with the shipped rule (cel-expr with proofs, cel-python without) denies the
  object under pod-security-baseline exactly when Kubernetes refuses the pod.

Per backend, pods with a fixed seed and with a fresh one (``PODS``); a failure shows the pod,
shrunk by hypothesis to the fields that matter, with the object and both answers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from tests.conftest import POLICIES
from tests.oracles import podgen
from tests.oracles.build import Conversation, oracle
from tests.oracles.differential import without_nulls
from tests.oracles.seeds import FIXED_SEED
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle
from webhook.engine.cel.backend import Backend, CelEvalError
from webhook.engine.cel.engines import make_backend
from webhook.engine.request import parse_review
from webhook.engine.review import review
from webhook.suites import inline_review

pytestmark = pytest.mark.slow  # builds and runs a Go oracle

RULE = "pod-security-baseline"
FOLDER = Path(POLICIES) / "rules" / RULE
PODS = {"cel-expr": 300, "cel-python": 30}
"""Pods per seed and backend (two seeds a run): cel-python is the slow one."""
NAMESPACE = "platform-demo"
USER = yaml.safe_load((Path(POLICIES) / "rules" / "fixtures.yaml").read_text())["users"]["alice"]

CHECKS = {
    "hostnetwork": "hostNamespaces",
    "hostpid": "hostNamespaces",
    "hostipc": "hostNamespaces",
    "hostpath": "hostPathVolumes",
    "privileged": "privileged",
    "capabilit": "capabilities_baseline",
    "hostport": "hostPorts",
    "seccomp": "seccompProfile_baseline",
    "apparmor": "appArmorProfile",
    "selinux": "seLinuxOptions",
    "procmount": "procMount",
    "windows": "windowsHostProcess",
    "sysctls": "sysctls",
    "probe or lifecycle": "hostProbesAndHostLifecycle",
}
"""Which Kubernetes check a validation answers, by a word of its message."""

VALIDATIONS: list[dict[str, Any]] = yaml.safe_load((FOLDER / "rule.yaml").read_text())[
    "validations"
]


def check_of(validation: dict[str, Any]) -> str:
    found = {check for word, check in CHECKS.items() if word in validation["message"].lower()}
    assert len(found) == 1, (validation["message"], found)
    return found.pop()


class Ours:
    """The rule's validations compiled on one backend."""

    def __init__(self, name: str) -> None:
        self.backend: Backend = make_backend(name)
        self.programs = [
            (
                check_of(v),
                self.backend.compile(v["expression"]),
                self.backend.compile(v.get("messageExpression") or json.dumps(v["message"])),
            )
            for v in VALIDATIONS
        ]

    def failing(self, obj: dict[str, Any]) -> set[str]:
        """The checks whose validations fail (an evaluation error fails closed: named too)."""
        activation = self.backend.activation({"object": without_nulls(obj)})  # as decoded
        failed = set()
        for check, program, message in self.programs:
            try:
                holds = self.backend.evaluate(program, activation)
            except CelEvalError as exc:  # fails closed: named, so the diff shows it
                failed.add(f"{check} (error: {exc})")
                continue
            if holds is not True:
                failed.add(check)
                text = self.backend.evaluate(message, activation)
                assert isinstance(text, str) and text, (check, text)
        return failed


@pytest.fixture(scope="module")
def kubernetes() -> Iterator[Conversation]:
    talk = Conversation(oracle("podsecurity"))
    try:
        yield talk
    finally:
        talk.close()


@cache
def compiled(name: str) -> Ours:
    """The validations compiled once a run per backend (cel-python's parser is slow)."""
    return Ours(name)


@pytest.fixture(scope="module")
def portable() -> Bundle:
    return load_bundle(POLICIES, "cel-python", proofs=False)


def only_the_rule(bundle: Bundle) -> Bundle:
    """``bundle`` with this rule alone: review() judges it as it does among the others."""
    return replace(bundle, rules=tuple(r for r in bundle.rules if r.id == RULE))


def test_every_baseline_check_is_answered(kubernetes: Conversation) -> None:
    """The rule has a validation for each baseline check Kubernetes runs at latest, and no other."""
    answered = {check_of(v) for v in VALIDATIONS}
    assert answered == set(CHECKS.values())
    every = {"spec": {"containers": [{"name": "x", "image": "x"}]}}
    assert kubernetes.ask(every) == {"allowed": True, "checks": [], "unknown": []}


def _deliberate(unknown: str) -> bool:
    """Fields the generator spells in another case on purpose (the API server drops them)."""
    return '"spec.HostNetwork"' in unknown or ".Privileged" in unknown


def _agree(
    template: dict[str, Any],
    kind: tuple[str, str],
    kubernetes: Conversation,
    ours: Ours,
    bundle: Bundle,
) -> None:
    answer = kubernetes.ask(template)
    assert "error" not in answer and "panic" not in answer, answer
    assert all(_deliberate(u) for u in answer["unknown"]), answer["unknown"]
    obj = podgen.wrap(*kind, template, NAMESPACE)
    assert ours.failing(obj) == set(answer["checks"]), obj
    sent = without_nulls(obj)  # the Pod as the API server decodes it: a null field is absent
    request = parse_review(inline_review({"object": sent, "user": USER}), require_uid=False)
    decision = review(request, bundle)
    denied = any(v.rule == RULE for v in decision.violations)
    assert denied == (not answer["allowed"]), (obj, decision.violations)


@pytest.mark.parametrize("fixed", [True, False], ids=["fixed-seed", "fresh-seed"])
@pytest.mark.parametrize("name", list(PODS))
def test_kubernetes_agrees_pod_by_pod(
    name: str, fixed: bool, kubernetes: Conversation, bundle: Bundle, portable: Bundle
) -> None:
    ours = compiled(name)
    judge = only_the_rule(bundle if name == "cel-expr" else portable)

    @settings(
        max_examples=PODS[name],
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(template=podgen.pod(), kind=st.sampled_from(podgen.KINDS))
    def agree(template: dict[str, Any], kind: tuple[str, str]) -> None:
        _agree(template, kind, kubernetes, ours, judge)

    (seed(FIXED_SEED)(agree) if fixed else agree)()

"""pod-security-baseline as the Karmada API server would run it (the rule is exported as a
ValidatingAdmissionPolicy): Kubernetes' own CEL (``cel/``, k8s.io/apiserver's compiler and
environment) compiles each validation in the environment a new policy is checked with, holds
each on every pod of the rule's suite exactly where fedgate's verdict says it holds, and its
message expressions give the messages the suite expects."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import POLICIES
from tests.oracles.build import ask, oracle
from webhook.suites import load_suite

pytestmark = pytest.mark.slow  # builds and runs a Go oracle

RULE = "pod-security-baseline"
FOLDER = Path(POLICIES) / "rules" / RULE


def test_kubernetes_cel_agrees_with_every_case_of_the_suite() -> None:
    binary = oracle("cel")
    validations = yaml.safe_load((FOLDER / "rule.yaml").read_text())["validations"]
    # the suite's pods, not its overrides (judged on member copies) nor its platform-namespace
    # case (the binding's scope leaves it out, not the expressions)
    cases = [
        c
        for c in load_suite(FOLDER / "tests.yaml")
        if c.review["request"]["kind"]["kind"] != "OverridePolicy"
        and c.review["request"]["namespace"] == "platform-demo"
    ]
    asked: list[dict[str, Any]] = []
    for case in cases:
        request = case.review["request"]
        variables = {"object": request.get("object"), "oldObject": request.get("oldObject")}
        for validation in validations:
            asked.append({"expr": validation["expression"], "vars": variables, "new": True})
            message = validation.get("messageExpression") or repr(validation["message"])
            asked.append({"expr": message, "vars": variables})
    answers = iter(ask(binary, asked))
    for case in cases:
        failed, messages = [], []
        for _ in validations:
            holds, message = next(answers), next(answers)
            assert "compile" not in holds and not holds.get("new_compile"), (case.name, holds)
            assert "error" not in holds, (case.name, holds)
            if holds["value"] != ["bool", True]:
                failed.append(holds)
                messages.append(message["value"][1])
        assert bool(failed) == (RULE in (case.expect.rules or ())), case.name
        for pattern in case.expect.messages:
            assert any(re.search(pattern, m) for m in messages), (case.name, pattern, messages)

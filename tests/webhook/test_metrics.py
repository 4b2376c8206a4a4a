"""The per-request metrics count every observation, with each label set's child looked up once."""

from __future__ import annotations

from webhook.engine.decision import Decision, ExceptionUse, Violation
from webhook.engine.request import AdmissionRequest, GroupVersionKind, UserInfo
from webhook.shell.metrics import Metrics

REQUESTS = 'fedgate_admission_requests_total{kind="Deployment",operation="UPDATE",'


def test_each_label_set_counts_every_observation() -> None:
    metrics = Metrics(kinds=frozenset({"Deployment"}))
    request = AdmissionRequest(
        "u", GroupVersionKind("apps", "v1", "Deployment"), "deployments", "UPDATE", UserInfo("a")
    )
    denied = Decision(
        allowed=False,
        violations=(Violation("image-tag"), Violation("replicas", action="warn")),
        faults=("fast-path: it raised",),
        exceptions=(ExceptionUse("legacy", "image-tag", "2030-01-01", "o"),),
    )
    for decision in (denied, Decision(allowed=True), denied):
        metrics.observe(request, decision, 0.003)
    text = metrics.exposition().decode()
    for line in (
        REQUESTS + 'result="denied"} 2.0',
        REQUESTS + 'result="allowed"} 1.0',
        'fedgate_rule_violations_total{action="deny",rule="image-tag"} 2.0',
        'fedgate_rule_violations_total{action="warn",rule="replicas"} 2.0',
        'fedgate_exception_uses_total{exception="legacy",rule="image-tag"} 2.0',
        'fedgate_engine_faults_total{where="fast-path"} 2.0',
        "fedgate_admission_duration_seconds_count 3.0",
    ):
        assert line in text.splitlines(), line

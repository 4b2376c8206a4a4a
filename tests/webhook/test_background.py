"""The background audit's rounds (webhook/shell/background.py): nothing before the live index is
ready, every held object judged once it is, a violation that goes away set to 0, and one
auditor among the workers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prometheus_client import generate_latest

from tests.webhook.livecase import hand_made
from webhook.bundle.model import Bundle
from webhook.shell.background import BackgroundAudit
from webhook.shell.metrics import Metrics


class Held:
    def __init__(self, objects: list[dict[str, Any]], ready: bool = True) -> None:
        self.objects, self.is_ready = objects, ready

    def ready(self) -> bool:
        return self.is_ready

    def held(self) -> list[dict[str, Any]]:
        return self.objects


def _unpinned() -> dict[str, Any]:
    obj = hand_made("unpinned")
    obj["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.example.com/x:latest"
    return obj


def _exposed(metrics: Metrics) -> str:
    return generate_latest(metrics.registry).decode()


def test_rounds_judge_what_is_held_and_clear_what_went_away(bundle: Bundle, tmp_path: Path) -> None:
    metrics = Metrics()
    held = Held([hand_made("fine"), _unpinned()], ready=False)
    audit = BackgroundAudit(held, lambda: bundle, metrics, 10, tmp_path)
    assert audit.round() is None and "fedgate_audit_runs_total 0.0" in _exposed(metrics)
    held.is_ready = True
    result = audit.round()
    assert result is not None and result.objects == 2
    rules = {f.violation.rule for f in result.findings}
    assert "image-tag" in rules and "registry-allowed" in rules
    text = _exposed(metrics)
    assert 'fedgate_audit_violations{namespace="platform-demo",rule="image-tag"} 1.0' in text
    assert "fedgate_audit_objects 2.0" in text
    held.objects = [hand_made("fine")]
    audit.round()
    text = _exposed(metrics)
    assert 'fedgate_audit_violations{namespace="platform-demo",rule="image-tag"} 0.0' in text
    assert "fedgate_audit_runs_total 2.0" in text


def test_one_worker_audits_and_another_takes_over_when_it_goes(
    bundle: Bundle, tmp_path: Path
) -> None:
    first, second = (
        BackgroundAudit(Held([]), lambda: bundle, Metrics(), 10, tmp_path) for _ in range(2)
    )
    assert first.auditor() and first.auditor()
    assert not second.auditor()
    first.stop()
    assert second.auditor()
    second.stop()

"""Every rule of the bundle against every control-plane writer doing its job (table.py): the
write passes, whatever the object contains; the same write with one field of the contents
changed beside the writer's own is judged whole, and denied. Which rules each row meets is
what docs/control-plane.md shows, held to it here."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from tests.conftest import ROOT
from tests.controlplane.table import JOBS, OUT_OF_LANE, Job, request, rows
from webhook.bundle.model import Bundle
from webhook.engine.builtins import WRITER_RULES
from webhook.engine.request import parse_review
from webhook.engine.review import review

ROWS = rows()
DOC = ROOT / "docs" / "control-plane.md"


@pytest.mark.parametrize(("job", "kind"), ROWS, ids=[f"{j.name}:{k}" for j, k in ROWS])
def test_a_writers_job_passes_every_rule(job: Job, kind: str, bundle: Bundle) -> None:
    decision = review(parse_review(request(job, kind), require_uid=False), bundle)
    assert decision.allowed, [(v.rule, v.message) for v in decision.violations]
    assert [v for v in decision.violations if v.action == "deny"] == []


SPOILED = [(j, k) for j, k in ROWS if j.spoilable]


@pytest.mark.parametrize(("job", "kind"), SPOILED, ids=[f"{j.name}:{k}" for j, k in SPOILED])
def test_the_same_write_with_contents_changed_is_judged_whole(
    job: Job, kind: str, bundle: Bundle
) -> None:
    decision = review(parse_review(request(job, kind, spoil=True), require_uid=False), bundle)
    assert not decision.allowed
    judged = {v.rule for v in decision.violations}
    if job.sub_resource != "status":  # there, the status rule says the rest is not its to write
        assert judged - WRITER_RULES, judged


OUTSIDE = rows(OUT_OF_LANE)


@pytest.mark.parametrize(("job", "kind"), OUTSIDE, ids=[f"{j.name}:{k}" for j, k in OUTSIDE])
def test_a_controllers_write_outside_its_job_is_denied(job: Job, kind: str, bundle: Bundle) -> None:
    decision = review(parse_review(request(job, kind), require_uid=False), bundle)
    assert not decision.allowed
    assert "ownership.system-controller" in {
        v.rule for v in decision.violations if v.action == "deny"
    }


def rules_met(bundle: Bundle) -> dict[str, set[str]]:
    """rule id -> the rows (job names) whose request the rule's match selects."""
    met: dict[str, set[str]] = defaultdict(set)
    for job, kind in ROWS:
        req = parse_review(request(job, kind), require_uid=False)
        in_tenant = (
            bundle.tenant_of_namespace(req.namespace) is not None if req.namespace else False
        )
        for rule in bundle.rules:
            if rule.match.applies(
                req.kind.group, req.kind.kind, req.operation, req.sub_resource, in_tenant
            ) and rule.match.selects(req):
                met[rule.id].add(job.name)
    return met


def test_every_rule_is_met_by_some_writer_or_said_to_be_met_by_none(bundle: Bundle) -> None:
    """The doc's table names, for every rule, the jobs it meets: a rule added or rematched
    without the table being looked at again fails here."""
    text = DOC.read_text()
    table = dict(re.findall(r"^\| `([^`]+)` \| ([^|]*) \|", text, re.MULTILINE))
    met = rules_met(bundle)
    expected = {rule.id: ", ".join(sorted(met.get(rule.id, ()))) or "none" for rule in bundle.rules}
    shown = {rule: jobs.strip() for rule, jobs in table.items() if rule in expected}
    assert shown == expected


def test_every_job_is_in_the_doc() -> None:
    text = DOC.read_text()
    for job in JOBS:
        assert f"`{job.name}`" in text, job.name

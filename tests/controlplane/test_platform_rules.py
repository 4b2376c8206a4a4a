"""A platform team's own CEL rule is a rule about contents like the shipped ones: Karmada's
claim on a template the rule would refuse passes, and so does Karmada's delete of a binding;
a tenant's change of the template, and break-glass's delete, are judged by it."""

from __future__ import annotations

from pathlib import Path

from tests.controlplane.table import CONTROLLER_MANAGER, JOBS, TENANT, Job, request
from tests.webhook.engine.custom_rules import bundle_with
from webhook.engine.request import parse_review
from webhook.engine.review import review

GOLD = "\"has(object.metadata.labels) && object.metadata.labels['tier'] == 'gold'\""
DEPLOYMENTS = "{apiGroups: [apps], kinds: [Deployment]}"
KEPT = '"!has(oldObject.spec.clusters)"'
BINDINGS = "{apiGroups: [work.karmada.io], kinds: [ResourceBinding]}"
ONCALL = ("oncall@example.com", ("fedgate:break-glass",))


def _judged(job: Job, kind: str, tmp_path: Path, rule: str, kinds: str) -> set[str]:
    """The rules that object to ``job`` under a bundle with a platform rule ``custom``."""
    bundle = bundle_with(
        tmp_path,
        f"validations:\n  - expression: {rule}\n    message: the platform says no\n",
        f"action: deny\nmatch:\n  kinds: [{kinds}]\n  operations: [CREATE, UPDATE, DELETE]\n",
    )
    decision = review(parse_review(request(job, kind), require_uid=False), bundle)
    return {v.rule for v in decision.violations}


CLAIM = next(j for j in JOBS if j.name == "claim")


def test_karmadas_claim_is_not_judged_by_a_platform_rule_about_contents(tmp_path: Path) -> None:
    assert _judged(CLAIM, "Deployment", tmp_path, GOLD, DEPLOYMENTS) == set()


def test_a_tenants_label_change_is(tmp_path: Path) -> None:
    tenant = Job("label", "a tenant", TENANT, "UPDATE", ("Deployment",), CLAIM.edit)
    assert "custom" in _judged(tenant, "Deployment", tmp_path, GOLD, DEPLOYMENTS)


def _delete(user: tuple[str, tuple[str, ...]]) -> Job:
    return Job("delete", "", user, "DELETE", ("ResourceBinding",), lambda obj: (obj, None))


def test_karmadas_delete_of_a_binding_is_not_judged_by_what_it_held(tmp_path: Path) -> None:
    assert (
        _judged(_delete(CONTROLLER_MANAGER), "ResourceBinding", tmp_path, KEPT, BINDINGS) == set()
    )
    assert "custom" in _judged(_delete(ONCALL), "ResourceBinding", tmp_path / "b", KEPT, BINDINGS)

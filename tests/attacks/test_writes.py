"""Harmful writes a tenant (or Git) could make that the rules let through, and the control
plane's writes, each an AdmissionReview with the decision a correct platform must give
(Karmada's detector, scheduler and defaulting, Kubernetes' defaulting, Argo CD): through
review() with the example bundle.

- writes/: every deny in writes/tests.yaml was allowed on 8a7614c; the allowed cases are the
  legitimate writes beside them (Argo CD creating its own template, a tenant's own policy).
- heldback/: a held-back set of 73 further requests of the classes the writers' review found
  (the control plane locked out of its own writes; harmful writes let through), each as its
  real writer sends it, with the answer upstream's code calls for (Karmada v1.18.2,
  Kubernetes, Argo CD). On f418d91, 9 got the wrong decision and 1 the wrong rules:
  Karmada's scheduler and descheduler writing more of a binding than their code does (5), a
  tenant's quota billed beside Git's autoscaled templates as if their autoscalers kept fewer
  pods than minReplicas (2), a Job billed at a parallelism above its completions (1), and an
  OverridePolicy's deprecated top-level overriders, which Karmada still applies, unread by
  tenancy.override-registry and retain.override-owned-field (2). Eleven more hold a member-hpa
  app's retain label and replicas, which Karmada's hpaScaleTargetMarker and
  deploymentReplicasSyncer write as the controller-manager (in both layouts) and nobody else
  may: on 70946ed the marker's removal, its add and the syncer's write (5) were denied.
- heldback2/: a second held-back set of 58 requests, of members of the same classes the first
  did not try (Karmada's agents, estimator, search and descheduler beyond their jobs, Argo CD's
  server-side diff and client-side apply, kubectl debug and scale, dry-run deletes, tenants in
  several groups, cluster-wide policies from a tenant, quota for more kinds, autoscalers on
  Git's autoscalers). On 70946ed, 2 were allowed that must be denied: a template's annotation
  ``work.karmada.io/conflict-resolution: overwrite``, which Karmada's binding controller
  prefers to its policy's conflictResolution, unread by tenancy.conflict-overwrite; and 2
  overrides that move the member's copy to kube-system were denied only because the engine
  refused its own request for the copy (request.unexpected), now refused as a move."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook.bundle.model import Bundle
from webhook.suites import Case, load_suite, run_case

HERE = Path(__file__).resolve().parent
FOLDERS = ("writes", "heldback", "heldback2")
CASES = [(folder, case) for folder in FOLDERS for case in load_suite(HERE / folder / "tests.yaml")]


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_request_file_is_a_case(folder: str) -> None:
    names = {f"{case.name}.json" for where, case in CASES if where == folder}
    assert {p.name for p in (HERE / folder).glob("*.json")} == names


@pytest.mark.parametrize(("folder", "case"), CASES, ids=[f"{f}:{c.name}" for f, c in CASES])
def test_through_review(folder: str, case: Case, bundle: Bundle) -> None:
    result = run_case(case, bundle)
    assert result.passed, "\n".join(result.problems)

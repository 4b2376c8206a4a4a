"""`fedgate check` in a real git repository: what changed against HEAD, reviewed as Argo CD's
writes (CREATE, UPDATE with the committed version, DELETE for what is gone)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
import yaml

from tests.helpers import git, run


@pytest.fixture
def repo(platform_repo: Path) -> Path:
    return platform_repo


def check(*args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code, out, _ = run(["check", "--output", "json", *args])
    return code, json.loads(out)


@pytest.mark.slow
def test_nothing_changed(repo: Path) -> None:
    code, report = check()
    assert (code, report["ok"], report["reviews"]) == (0, True, [])
    code, report = check("--all")
    assert code == 0 and len(report["reviews"]) == 19  # every Karmada manifest, not Argo CD's
    assert {r["operation"] for r in report["reviews"]} == {"UPDATE"}


@pytest.mark.slow
def test_changes_are_reviewed_as_updates_and_deletes(repo: Path) -> None:
    spec = repo / "apps" / "status-page.yaml"
    spec.write_text(spec.read_text().replace("replicas: 2", "replicas: 3"))
    (repo / "apps" / "checkout.yaml").unlink()
    assert run(["compile"])[0] == 0
    code, report = check()
    assert code == 0, report
    operations = {(r["file"].split("rendered/")[1], r["operation"]) for r in report["reviews"]}
    assert operations == {
        ("platform-demo/status-page/deployment.yaml", "UPDATE"),
        ("payments/checkout/deployment.yaml", "DELETE"),
        ("payments/checkout/overridepolicy.yaml", "DELETE"),
        ("payments/checkout/propagationpolicy.yaml", "DELETE"),
    }


@pytest.mark.slow
def test_a_stale_tree_fails(repo: Path) -> None:
    spec = repo / "apps" / "status-page.yaml"
    spec.write_text(spec.read_text().replace("replicas: 2", "replicas: 3"))
    code, report = check()
    assert code == 1 and not report["ok"]
    assert report["stale"]["stale"] == ["platform-demo/status-page/deployment.yaml"]


@pytest.mark.slow
def test_a_spec_change_not_compiled_is_not_called_a_hand_edit(repo: Path) -> None:
    """The rendered file is what fedgate last wrote (its manifest's digest): the spec changed,
    nobody edited the file."""
    spec = repo / "apps" / "status-page.yaml"
    spec.write_text(spec.read_text().replace("replicas: 2", "replicas: 3"))
    code, out, _ = run(["check"])
    assert code == 1
    assert (
        "stale    rendered/platform-demo/status-page/deployment.yaml: spec changed since the "
        "last compile at /spec/replicas (owned by git)"
    ) in out
    assert "edited by hand" not in out


@pytest.mark.slow
def test_an_ignored_field_keeps_its_live_value(repo: Path) -> None:
    """A committed export carries Karmada's claim label; the render drops it. The tenant's
    Application ignores Karmada's claim fields with RespectIgnoreDifferences, so Argo CD keeps
    the live label in what it applies: the UPDATE leaves it alone and is admitted, with a note."""
    path = repo / "rendered" / "platform-demo" / "demo-http" / "deployment.yaml"
    fresh = path.read_text()
    path.write_text(
        fresh.replace(
            "    app.kubernetes.io/managed-by: fedgate\n",
            "    app.kubernetes.io/managed-by: fedgate\n"
            "    propagationpolicy.karmada.io/permanent-id: 0d8a5a63\n",
        )
    )
    git(repo, "commit", "-qam", "an export committed by mistake")
    path.write_text(fresh)
    code, report = check()
    assert code == 0, report
    [write] = report["reviews"]
    assert (write["operation"], write["allowed"], write["application"]) == (
        "UPDATE",
        True,
        "fedgate-team-a",
    )
    assert write["notes"] == [
        "Argo CD ignores /metadata/labels/propagationpolicy.karmada.io~1permanent-id here "
        "(ignoreDifferences, RespectIgnoreDifferences) and keeps the live value: this change of "
        "it never reaches the cluster"
    ]


HAND_WRITTEN_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: batch
  namespace: platform-demo
  annotations:
    fedgate.dev/ownership: '{"":"git","/spec/replicas":"federated-hpa"}'
spec:
  replicas: 2
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec:
      containers:
        - name: batch
          image: registry.example.com/platform/batch:1.0
          resources: {requests: {cpu: 100m, memory: 64Mi}}
"""


@pytest.mark.slow
def test_an_update_admission_would_deny_fails(repo: Path) -> None:
    """A hand-written Deployment whose ledger gives /spec/replicas to the FederatedHPA: git
    changing it is an UPDATE the webhook denies (no ignoreDifferences covers it)."""
    path = repo / "rendered" / "platform-demo" / "batch" / "deployment.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(HAND_WRITTEN_DEPLOYMENT)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a hand-written Deployment")
    path.write_text(HAND_WRITTEN_DEPLOYMENT.replace("replicas: 2", "replicas: 5"))
    code, report = check()
    assert code == 1
    [denied] = [r for r in report["reviews"] if not r["allowed"]]
    assert (denied["operation"], denied["file"]) == (
        "UPDATE",
        "rendered/platform-demo/batch/deployment.yaml",
    )
    assert denied["violations"][0]["message"].startswith("/spec/replicas is owned by federated-hpa")


SNEAKY_PP = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: sneaky
  namespace: platform-demo
spec:
  resourceSelectors:
    - apiVersion: v1
      kind: Secret
  placement:
    clusterAffinity:
      clusterNames: [cluster-c]
"""


@pytest.mark.slow
def test_a_hand_written_policy_is_reviewed(repo: Path) -> None:
    """The team-a Application's include {platform-demo/*} syncs this file (``*``
    crosses ``/``), so the check reviews its CREATE as the webhook will."""
    path = repo / "rendered" / "platform-demo" / "extra" / "sneaky-pp.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(SNEAKY_PP)
    code, out, _ = run(["check"])
    assert code == 1
    assert "DENIED  CREATE policy.karmada.io/v1alpha1 PropagationPolicy platform-demo/sneaky" in out
    assert "Secret (by label) would go to cluster-c, outside tenant team-a's Secret scope" in out
    code, report = check("--all")
    assert code == 1
    [sneaky] = [r for r in report["reviews"] if r["file"].endswith("sneaky-pp.yaml")]
    assert {v["rule"] for v in sneaky["violations"]} == {
        "tenancy.data-scope",
        "tenancy.explicit-selectors",
        "tenancy.placement-scope",
    }
    code, report = check("rendered/platform-demo/extra/sneaky-pp.yaml")
    assert code == 1 and [r["file"] for r in report["reviews"]] == [
        "rendered/platform-demo/extra/sneaky-pp.yaml"
    ]


@pytest.mark.slow
def test_a_hand_edit_of_a_fedgate_file_is_stale_and_reviewed(repo: Path) -> None:
    """Replicas written into a Deployment the FederatedHPA scales. Stale, naming the
    field and its owner; reviewed as the UPDATE Argo CD makes, which keeps the live replicas
    (the tenant's Application ignores /spec/replicas of this Deployment)."""
    path = repo / "rendered" / "platform-demo" / "web-frontend" / "deployment.yaml"
    text = path.read_text()
    path.write_text(text.replace("spec:\n  selector:", "spec:\n  replicas: 8\n  selector:", 1))
    code, out, _ = run(["check"])
    assert code == 1
    assert (
        "stale    rendered/platform-demo/web-frontend/deployment.yaml: edited by hand at "
        "/spec/replicas (owned by federated-hpa)"
    ) in out
    assert "note  Argo CD ignores /spec/replicas here" in out
    code, report = check()
    assert report["stale"]["fields"] == [
        {
            "file": "rendered/platform-demo/web-frontend/deployment.yaml",
            "pointer": "/spec/replicas",
            "owner": "federated-hpa",
        }
    ]
    assert [r["operation"] for r in report["reviews"]] == ["UPDATE"]


@pytest.mark.slow
def test_a_file_no_application_syncs_is_a_warning(repo: Path) -> None:
    stray = repo / "rendered" / "stray" / "configmap.yaml"
    stray.parent.mkdir(parents=True)
    stray.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: stray}\n")
    code, out, _ = run(["check"])
    assert code == 0
    assert (
        "warning: rendered/stray/configmap.yaml: no Argo CD Application syncs this file: it "
        "never reaches the cluster"
    ) in out
    code, report = check()
    assert report["unsynced"] == ["rendered/stray/configmap.yaml"] and report["reviews"] == []


REGIONAL_MIRROR = """\
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata:
  name: us-mirror
  namespace: payments
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
  overrideRules:
    - targetCluster: {clusterNames: [cluster-c]}
      overriders:
        imageOverrider:
          - {component: Registry, operator: replace, value: docker.io}
"""


@pytest.mark.slow
def test_a_hand_written_override_is_judged_on_each_member(repo: Path) -> None:
    """Each payments Deployment's cluster-c copy would pull from docker.io: besides the
    policy's own review, check judges the member copies the change reaches and names the
    cluster and the override."""
    path = repo / "rendered" / "payments" / "mirrors.yaml"
    path.write_text(REGIONAL_MIRROR)
    code, report = check()
    assert code == 1
    denied = {
        (m["name"], cluster, v["rule"], v["override"])
        for m in report["members"]
        for cluster, vs in m["violations"].items()
        for v in vs
        if v["action"] == "deny"
    }
    assert (
        "checkout",
        "cluster-c",
        "registry-allowed",
        "OverridePolicy payments/us-mirror",
    ) in denied
    assert {cluster for _, cluster, _, _ in denied} == {"cluster-c"}
    [policy] = [r for r in report["reviews"] if r["file"].endswith("mirrors.yaml")]
    assert {v["rule"] for v in policy["violations"]} == {
        "tenancy.explicit-selectors",
        "tenancy.override-registry",
    }


LABEL_SELECTED = """\
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: canary, namespace: payments}
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      labelSelector: {matchLabels: {track: canary}}
  overrideRules:
    - overriders: {labelsOverrider: [{operator: add, value: {tier: canary}}]}
"""


@pytest.mark.slow
def test_a_label_selected_override_that_matches_nothing_is_a_finding(repo: Path) -> None:
    """No template in Git carries the label: the override waits for one created later. Check
    says so, and judges what it writes on a stand-in carrying the label."""
    path = repo / "rendered" / "payments" / "canary.yaml"
    path.write_text(LABEL_SELECTED)
    code, report = check()
    [policy] = [r for r in report["reviews"] if r["file"].endswith("canary.yaml")]
    assert code == 0 and policy["allowed"], policy
    [finding] = policy["violations"]
    assert (finding["rule"], finding["action"]) == ("overrides.member-copies", "warn")
    assert "matches no template in the synced tree" in finding["message"]
    path.write_text(
        LABEL_SELECTED.replace(
            "{labelsOverrider: [{operator: add, value: {tier: canary}}]}",
            "{imageOverrider: [{component: Tag, operator: replace, value: latest}]}",
        )
    )
    code, report = check()
    [policy] = [r for r in report["reviews"] if r["file"].endswith("canary.yaml")]
    assert code == 1 and not policy["allowed"], policy
    assert {v["rule"] for v in policy["violations"] if v["action"] == "deny"} == {"image-tag"}


@pytest.mark.slow
def test_files_narrow_the_review(repo: Path) -> None:
    code, report = check("--all", "apps/demo-http.yaml")
    assert code == 0
    assert len(report["reviews"]) == 19  # --all wins
    code, report = check("apps/demo-http.yaml")
    assert sorted(r["file"].rsplit("/", 1)[1] for r in report["reviews"]) == [
        "deployment.yaml",
        "overridepolicy.yaml",
        "propagationpolicy.yaml",
    ]


@pytest.mark.slow
def test_files_do_not_hide_a_removed_file(repo: Path) -> None:
    """pre-commit passes the files a commit adds or changes, never the ones it deletes: the
    DELETE Argo CD's prune makes of a removed hand-written file is reviewed whatever FILES
    name (it is a change, and nothing else could name it)."""
    extra = repo / "rendered" / "payments" / "extra" / "banner.yaml"
    extra.parent.mkdir(parents=True)
    extra.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: banner}\ndata: {a: b}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a banner")
    extra.unlink()
    spec = repo / "apps" / "status-page.yaml"
    spec.write_text(spec.read_text().replace("replicas: 2", "replicas: 3"))
    assert run(["compile"])[0] == 0
    code, report = check("apps/status-page.yaml")
    assert code == 0, report
    operations = {(r["file"].split("rendered/")[1], r["operation"]) for r in report["reviews"]}
    assert operations == {
        ("platform-demo/status-page/deployment.yaml", "UPDATE"),
        ("platform-demo/status-page/propagationpolicy.yaml", "UPDATE"),  # named: unchanged too
        ("payments/extra/banner.yaml", "DELETE"),
    }


REGIONAL_CLUSTER_MIRROR = """\
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterOverridePolicy
metadata:
  name: eu-central-mirror
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
  overrideRules:
    - targetCluster:
        fieldSelector:
          matchExpressions:
            - {key: region, operator: In, values: [eu-central]}
      overriders:
        imageOverrider:
          - {component: Registry, operator: replace, value: mirror.example.cn}
"""


@pytest.mark.slow
def test_check_and_plan_give_one_verdict_on_a_policy_no_application_syncs(repo: Path) -> None:
    """A regional ClusterOverridePolicy where the platform keeps its own files (no tenant
    Application syncs rendered/platform/): plan applies it to every app's member copies and
    fails on team-b's cluster-b copies (mirror.example.cn/payments/ is not team-b's registry).
    check warned that no Application syncs it and passed: two verdicts on one tree."""
    path = repo / "rendered" / "platform" / "regional.yaml"
    path.parent.mkdir()
    path.write_text(REGIONAL_CLUSTER_MIRROR)
    plan_code, plan_out, _ = run(["plan", "--output", "json"])
    assert plan_code == 1
    planned = {
        (a["name"], cluster, v["rule"], v["override"])
        for a in json.loads(plan_out)["apps"]
        for cluster, vs in a["violations"].items()
        for v in vs
        if v["action"] == "deny"
    }
    code, report = check()
    assert report["unsynced"] == ["rendered/platform/regional.yaml"]
    assert code == plan_code, report
    checked = {
        (m["name"], cluster, v["rule"], v["override"])
        for m in report["members"]
        for cluster, vs in m["violations"].items()
        for v in vs
        if v["action"] == "deny"
    }
    assert checked == planned
    assert (
        "search-api",
        "cluster-b",
        "registry-allowed",
        "ClusterOverridePolicy eu-central-mirror",
    ) in checked


NAMESPACELESS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: side}
spec:
  replicas: 2
  selector: {matchLabels: {app: side}}
  template:
    metadata: {labels: {app: side}}
    spec:
      containers:
        - name: side
          image: registry.example.com/platform/side:1
          resources: {requests: {cpu: 100m, memory: 64Mi}}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: side}
spec:
  resourceSelectors:
    - {apiVersion: apps/v1, kind: Deployment, name: side}
  placement:
    clusterAffinity: {clusterNames: [cluster-a, cluster-b]}
---
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: side-latest}
spec:
  resourceSelectors:
    - {apiVersion: apps/v1, kind: Deployment, name: side}
  overrideRules:
    - targetCluster: {clusterNames: [cluster-b]}
      overriders:
        imageOverrider:
          - {component: Tag, operator: replace, value: latest}
"""


@pytest.mark.slow
def test_a_manifest_without_a_namespace_is_planned_where_argo_cd_puts_it(repo: Path) -> None:
    """Argo CD gives a namespaced object without a namespace its Application's destination
    namespace (team-a's: platform-demo). The Deployment, its PropagationPolicy and the
    OverridePolicy that sets :latest on cluster-b all land there, so cluster-b runs :latest.
    plan said "no cluster" and check passed: both read the objects as if in no namespace."""
    path = repo / "rendered" / "platform-demo" / "extra" / "side.yaml"
    path.parent.mkdir()
    path.write_text(NAMESPACELESS)
    plan_code, plan_out, _ = run(["plan", "--output", "json"])
    [side] = json.loads(plan_out)["templates"]
    assert (side["namespace"], side["name"]) == ("platform-demo", "side")
    assert side["policy"] == {
        "kind": "PropagationPolicy",
        "namespace": "platform-demo",
        "name": "side",
    }
    assert side["placement"] == {"cluster-a": 2, "cluster-b": 2}  # Duplicated
    assert side["overrides"]["cluster-b"] == ["OverridePolicy platform-demo/side-latest"]
    assert [v["rule"] for v in side["violations"]["cluster-b"]] == ["image-tag"]
    assert plan_code == 1
    code, report = check()
    assert code == 1, report
    [member] = report["members"]
    assert (member["namespace"], member["name"]) == ("platform-demo", "side")
    assert [v["rule"] for v in member["violations"]["cluster-b"]] == ["image-tag"]


@pytest.mark.slow
def test_an_object_the_applications_project_refuses_fails_the_check(repo: Path) -> None:
    """team-a's AppProject permits fedgate's kinds only (a Service is not one, nor anything
    cluster-wide): Argo CD refuses such an object and, with it, the whole sync operation of
    the Application ("one or more synchronization tasks are not valid"). check passed it."""
    extra = repo / "rendered" / "platform-demo" / "extra"
    extra.mkdir()
    (extra / "service.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n"
        "spec: {selector: {app: web}, ports: [{port: 80}]}\n"
    )
    (extra / "mirror.yaml").write_text(REGIONAL_CLUSTER_MIRROR)
    code, report = check()
    assert code == 1 and not report["ok"]
    assert sorted((r["file"], r["line"], r["message"]) for r in report["refused"]) == [
        (
            "rendered/platform-demo/extra/mirror.yaml",
            1,
            "Argo CD Application fedgate-team-a: resource policy.karmada.io:ClusterOverridePolicy "
            "is not permitted in project team-a: Argo CD fails the whole sync of the "
            "Application, every other change of it included",
        ),
        (
            "rendered/platform-demo/extra/service.yaml",
            1,
            "Argo CD Application fedgate-team-a: resource :Service is not permitted in project "
            "team-a: Argo CD fails the whole sync of the Application, every other change of it "
            "included",
        ),
    ]
    code, out, _ = run(["check"])
    assert code == 1
    assert "; 2 objects Argo CD may not sync" in out


@pytest.mark.slow
def test_an_invalid_hand_written_file_is_named_from_the_working_directory(repo: Path) -> None:
    """Like every other line of check (and spec errors): rendered/..., not the path inside the
    tree, which names no file from where the user stands."""
    bad = repo / "rendered" / "payments" / "bad.yaml"
    bad.write_text("kind: ConfigMap\nmetadata: {name: x}\n")
    code, out, _ = run(["check"])
    assert code == 1
    assert (
        "error: rendered/payments/bad.yaml:1: apiVersion: apiVersion must be a non-empty string"
        in out
    )


@pytest.mark.slow
def test_an_edit_that_keeps_size_and_time_is_found_after_check_learnt_the_tree(
    repo: Path,
) -> None:
    """The stat memo (``.git/fedgate/tree-stat.json``, ``compiler/compile/statmemo.py``) vouches for
    settled files only by their whole signature: an edit of the same size whose modification
    time is set back still moves the change time, so the next check reads the file again."""
    time.sleep(1.1)  # every file a second old: settled, so this check learns them all
    assert check()[0] == 0
    assert (repo / ".git" / "fedgate" / "tree-stat.json").is_file()
    assert check()[0] == 0  # with the memo: still up to date
    deployment = repo / "rendered" / "platform-demo" / "status-page" / "deployment.yaml"
    before = deployment.stat()
    text = deployment.read_text()
    assert "replicas: 2" in text
    deployment.write_text(text.replace("replicas: 2", "replicas: 7", 1))
    os.utime(deployment, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert deployment.stat().st_size == before.st_size
    code, report = check()
    assert code == 1
    assert report["stale"]["stale"] == ["platform-demo/status-page/deployment.yaml"]


QUAY = "      - quay.example.org/platform/\n"
MIRRORED_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: mirrored, namespace: platform-demo}
spec:
  replicas: 1
  selector: {matchLabels: {app: mirrored}}
  template:
    metadata: {labels: {app: mirrored}}
    spec:
      containers:
        - name: web
          image: quay.example.org/platform/web:1.0
          resources: {requests: {cpu: 100m, memory: 64Mi}}
"""


@pytest.mark.slow
@pytest.mark.parametrize("files", [(), ("policies/tenants.yaml",)], ids=["all", "hook"])
def test_a_rule_change_alone_reviews_every_manifest_again(
    repo: Path, files: tuple[str, ...]
) -> None:
    """A commit that changes only policies/ (a registry taken from team-a) changes no
    manifest, but the webhook will judge the next sync of every one under the new rules: a
    committed Deployment pulling from that registry is denied now, by check and by the hook
    (which passes the policy file)."""
    tenants = repo / "policies" / "tenants.yaml"
    registry = "      - mirror.example.cn/platform/\n"
    tenants.write_text(tenants.read_text().replace(registry, f"{registry}{QUAY}", 1))
    path = repo / "rendered" / "platform-demo" / "extra" / "mirrored.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(MIRRORED_DEPLOYMENT)
    code, report = check()  # a registry given to team-a widens it: named, not yet acknowledged
    assert code == 1
    assert report["weakened"] == [
        {
            "rule": "tenant:team-a",
            "changes": ["may now pull from quay.example.org/platform/"],
            "acknowledged": None,
        }
    ]
    (repo / "policies" / "weakenings.yaml").write_text(
        "- {rule: 'tenant:team-a', reason: team-a mirrors its images on quay}\n"
    )
    assert check()[0] == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "team-a may pull from quay; a hand-written Deployment does")
    code, report = check(*files)
    assert (code, report["policiesChanged"], report["reviews"]) == (0, False, [])
    tenants.write_text(tenants.read_text().replace(QUAY, "", 1))
    code, report = check(*files)
    assert code == 1 and report["policiesChanged"] is True
    denied = [r for r in report["reviews"] if not r["allowed"]]
    assert [r["file"] for r in denied] == ["rendered/platform-demo/extra/mirrored.yaml"]
    assert len(report["reviews"]) > 19  # every synced manifest, fedgate's and this one
    code, out, _ = run(["check", *files])
    assert code == 1 and "policies/ differs from git HEAD" in out


CLUSTER_ADMIN = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: team-a-admin}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: Group, name: team-a, apiGroup: rbac.authorization.k8s.io}]
"""
TO_KARMADA = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: team-a-anything, namespace: argocd}
spec:
  project: default
  source: {repoURL: 'https://git.example.com/platform/federation.git', path: team-a}
  destination: {name: karmada-apiserver, namespace: kube-system}
"""


@pytest.mark.slow
def test_only_fedgate_writes_the_argo_cd_folder(repo: Path) -> None:
    """The root Application syncs rendered/argocd/ into Argo CD's own cluster: a cluster-admin
    binding for team-a or an Application of project ``default`` aimed at the Karmada API
    server, written there by hand, was never looked at (the folder was skipped as "Argo CD's,
    not Karmada's") and passed."""
    folder = repo / "rendered" / "argocd"
    (folder / "admin.yaml").write_text(CLUSTER_ADMIN)
    (folder / "anything.yaml").write_text(TO_KARMADA)
    code, report = check()
    assert code == 1 and not report["ok"]
    assert [(u["file"], u["message"].split(":")[0]) for u in report["unjudged"]] == [
        ("rendered/argocd/admin.yaml", "only fedgate writes rendered/argocd/"),
        ("rendered/argocd/anything.yaml", "only fedgate writes rendered/argocd/"),
    ]
    code, out, _ = run(["check"])
    assert code == 1
    assert "; 2 files Argo CD acts on that fedgate cannot judge" in out


@pytest.mark.slow
def test_the_root_application_reads_only_fedgates_files_under_its_own_project(
    repo: Path,
) -> None:
    """Argo CD's ``default`` project permits everything everywhere; the root Application's own
    project permits Applications and AppProjects in argocd only, and its include names
    fedgate's files, so Argo CD itself would not read a hand-written one."""
    from compiler.argocd import directory, permissions  # noqa: PLC0415

    folder = repo / "rendered" / "argocd"
    root = yaml.safe_load((folder / "fedgate-tenants.yaml").read_text())
    project = yaml.safe_load((folder / "fedgate-root.yaml").read_text())
    assert root["spec"]["project"] == project["metadata"]["name"] == "fedgate-root"
    assert permissions.application_refusals(root, project) == []
    cluster = permissions.application_cluster(root)
    binding = yaml.safe_load(CLUSTER_ADMIN)
    assert permissions.sync_refusal(project, cluster, binding, namespaced=False) == (
        "resource rbac.authorization.k8s.io:ClusterRoleBinding is not permitted in project "
        "fedgate-root"
    )
    application = yaml.safe_load(TO_KARMADA)
    assert permissions.sync_refusal(project, cluster, application, namespaced=True) is None
    source = root["spec"]["source"]
    assert directory.selects(source, "rendered/argocd/team-a-application.yaml")
    assert not directory.selects(source, "rendered/argocd/anything.yaml")
    assert not directory.selects(source, "rendered/argocd/kustomization.yaml")


LISTED_POLICY = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: innocent, namespace: platform-demo}
items:
  - apiVersion: policy.karmada.io/v1alpha1
    kind: PropagationPolicy
    metadata: {name: sneaky, namespace: platform-demo}
    spec:
      resourceSelectors: [{apiVersion: v1, kind: Secret}]
      placement: {clusterAffinity: {clusterNames: [cluster-c]}}
"""


@pytest.mark.slow
def test_a_list_is_judged_item_by_item(repo: Path) -> None:
    """Argo CD applies each item of a document whose ``items`` is a list (``IsList()``), never
    the document: a "ConfigMap" carrying a PropagationPolicy that sends every Secret to
    cluster-c was reviewed as one harmless ConfigMap."""
    path = repo / "rendered" / "platform-demo" / "extra" / "list.yaml"
    path.parent.mkdir()
    path.write_text(LISTED_POLICY)
    code, report = check()
    assert code == 1
    [write] = report["reviews"]
    assert (write["operation"], write["allowed"]) == ("CREATE", False)
    assert {v["rule"] for v in write["violations"]} == {
        "tenancy.data-scope",
        "tenancy.explicit-selectors",
        "tenancy.placement-scope",
    }
    path.write_text(LISTED_APP)
    code, out, _ = run(["plan", "--tree", "rendered/platform-demo/extra", "--output", "json"])
    [template] = json.loads(out)["templates"]
    assert (template["kind"], template["name"], template["placement"]) == (
        "Deployment",
        "listed",
        {"cluster-a": 1},
    )
    assert [v["rule"] for v in template["violations"]["cluster-a"]] == ["image-tag"]
    assert code == 1


LISTED_APP = """\
apiVersion: v1
kind: List
items:
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: listed, namespace: platform-demo}
    spec:
      replicas: 1
      selector: {matchLabels: {app: listed}}
      template:
        metadata: {labels: {app: listed}}
        spec:
          containers:
            - name: web
              image: registry.example.com/platform/web:latest
              resources: {requests: {cpu: 100m, memory: 64Mi}}
  - apiVersion: policy.karmada.io/v1alpha1
    kind: PropagationPolicy
    metadata: {name: listed, namespace: platform-demo}
    spec:
      resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: listed}]
      placement: {clusterAffinity: {clusterNames: [cluster-a]}}
"""


@pytest.mark.slow
def test_a_source_override_file_is_refused(repo: Path) -> None:
    """``.argocd-source-<app>.yaml`` (and ``.argocd-source.yaml``) at an Application's path
    is merged into its source by Argo CD's repo server: this one narrows team-a's include to
    one app, so Argo CD would prune the other three. check called it a file that "never
    reaches the cluster"."""
    override = repo / "rendered" / ".argocd-source-fedgate-team-a.yaml"
    override.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: decoy}\n"
        'directory:\n  include: "{platform-demo/demo-http/*}"\n'
    )
    (repo / "rendered" / "payments" / ".argocd-source.yaml").write_text("directory: {}\n")
    code, report = check()
    assert code == 1 and report["unsynced"] == []
    assert [(u["file"], u["message"]) for u in report["unjudged"]] == [
        (
            "rendered/.argocd-source-fedgate-team-a.yaml",
            "Argo CD's repo server merges this file into the source of Argo CD Application "
            "fedgate-team-a before rendering it (directory include, exclude, recursion, "
            "jsonnet, or a Helm, Kustomize or plugin source instead): it changes what Argo CD "
            "syncs and prunes, and fedgate writes no such file; remove it",
        ),
        (
            "rendered/payments/.argocd-source.yaml",
            "Argo CD's repo server merges this file into the source of every Application whose "
            "path is this folder (and of the one it names) before rendering it (directory "
            "include, exclude, recursion, jsonnet, or a Helm, Kustomize or plugin source "
            "instead): it changes what Argo CD syncs and prunes, and fedgate writes no such "
            "file; remove it",
        ),
    ]


@pytest.mark.slow
def test_jsonnet_a_tenant_application_syncs_is_an_error(repo: Path) -> None:
    """Argo CD's directory source evaluates every .jsonnet file it selects and applies what it
    produces; fedgate cannot judge that (it was a warning)."""
    synced = repo / "rendered" / "platform-demo" / "extra" / "gen.jsonnet"
    synced.parent.mkdir()
    synced.write_text("{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'x'}}\n")
    unsynced = repo / "rendered" / "stray" / "gen.jsonnet"
    unsynced.parent.mkdir()
    unsynced.write_text("{}\n")
    code, report = check()
    assert code == 1
    [error] = report["unjudged"]
    assert error["file"] == "rendered/platform-demo/extra/gen.jsonnet"
    assert error["message"].startswith(
        "Argo CD evaluates this jsonnet file (fedgate-team-a renders every .jsonnet file its "
        "directory source selects)"
    )
    assert report["unsynced"] == ["rendered/stray/gen.jsonnet"]


@pytest.mark.slow
def test_a_symbolic_link_out_of_the_repository_is_refused(repo: Path, tmp_path: Path) -> None:
    """Argo CD refuses to render any Application of a repository holding an out-of-bounds
    symbolic link; check judged whatever the link reached on this machine."""
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yaml"
    outside.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    link = repo / "rendered" / "platform-demo" / "linked.yaml"
    link.symlink_to(outside)
    try:
        code, report = check()
    finally:
        outside.unlink()
    assert code == 1
    [error] = report["unjudged"]
    assert error["file"] == "rendered/platform-demo/linked.yaml"
    assert error["message"].startswith("a symbolic link out of the repository")


@pytest.mark.slow
def test_a_rule_removed_or_weakened_is_named_and_fails_until_acknowledged(repo: Path) -> None:
    """Deleting a rule folder, or lowering a rule to warn, disabled it silently: check said
    "policies/ differs from git HEAD ... would all be admitted". Each is named now, and fails
    until the change adds an acknowledgement the reviewer sees in its diff."""
    import shutil  # noqa: PLC0415

    shutil.rmtree(repo / "policies" / "rules" / "image-tag")
    binding = repo / "policies" / "rules" / "registry-allowed" / "binding.yaml"
    binding.write_text(binding.read_text().replace("action: deny", "action: warn", 1))
    code, report = check()
    assert code == 1 and report["policiesChanged"] is True
    assert report["weakened"] == [
        {
            "rule": "image-tag",
            "changes": ["removed (policies/rules/image-tag/ is gone or broken)"],
            "acknowledged": None,
        },
        {"rule": "registry-allowed", "changes": ["action deny -> warn"], "acknowledged": None},
    ]
    code, out, _ = run(["check"])
    assert code == 1
    assert (
        "error: rule registry-allowed is weakened against git HEAD: action deny -> warn. The "
        "webhook would admit what it stopped from the next sync on: if that is meant, add "
        "`- {rule: registry-allowed, reason: <why>}` to policies/weakenings.yaml in this "
        "change, for its reviewers to see"
    ) in out
    assert "; 2 rules weakened without acknowledgement" in out
    acknowledgements = repo / "policies" / "weakenings.yaml"
    acknowledgements.write_text(
        "- {rule: image-tag, reason: pinned by the registry's admission instead}\n"
        "- {rule: registry-allowed, reason: warn for a week while mirrors move}\n"
    )
    code, out, _ = run(["check"])
    assert code == 0, out
    assert (
        "note: rule image-tag is weakened against git HEAD: removed (policies/rules/image-tag/ "
        "is gone or broken) (acknowledged in policies/weakenings.yaml: pinned by the "
        "registry's admission instead)"
    ) in out
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "image-tag retired, registry-allowed warns")
    assert check()[0] == 0
    binding.write_text(binding.read_text().replace("action: warn", "action: audit", 1))
    code, report = check()  # the entry committed before acknowledges nothing now
    assert code == 1
    assert report["weakened"] == [
        {"rule": "registry-allowed", "changes": ["action warn -> audit"], "acknowledged": None}
    ]


@pytest.mark.parametrize(
    ("link", "target", "outside"),
    [
        ("/r/rendered/a/x.yaml", "../b/y.yaml", False),
        ("/r/rendered/a/x.yaml", "/r/rendered/b/y.yaml", True),  # every absolute target
        ("/r/rendered/a/x.yaml", "../../../etc/passwd", True),
        ("/r/rendered/a/x.yaml", "../../../r/rendered/b/y.yaml", True),  # leaves, then back
        ("/r/x.yaml", "rendered/../apps/y.yaml", False),
    ],
)
def test_out_of_bounds_as_argo_cd_tells_it(link: str, target: str, outside: bool) -> None:
    from compiler.check.tree import out_of_bounds  # noqa: PLC0415

    assert out_of_bounds("/r", link, target) is outside


@pytest.mark.slow
def test_a_linked_directory_out_of_the_repository_anywhere_in_it_is_refused(
    repo: Path, tmp_path: Path
) -> None:
    """Argo CD walks the whole repository for out-of-bounds links, directories included, not
    only the synced tree's manifest files."""
    (repo / "apps" / "shared").symlink_to(tmp_path.parent)
    git(repo, "add", "apps/shared")
    code, report = check()
    assert code == 1
    [error] = report["unjudged"]
    assert error["file"] == "apps/shared"
    assert error["message"].startswith(
        f"a symbolic link out of the repository (to {tmp_path.parent})"
    )


@pytest.mark.slow
def test_a_staged_rule_warns_in_check_and_denies_once_enforced(repo: Path) -> None:
    """image-tag rolled out in steps: a warning in pre-commit (the plan already shows the deny
    to come), then deny everywhere, and the same commit fails."""
    binding = repo / "policies" / "rules" / "image-tag" / "binding.yaml"
    enforced = binding.read_text()
    binding.write_text(enforced.replace("action: deny", STAGED_ACTION))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "stage image-tag")
    spec = repo / "apps" / "status-page.yaml"
    spec.write_text(spec.read_text().replace("status-page:2.3.1", "status-page:latest"))
    code, _, err = run(["compile"])
    assert code == 0 and "(staged: deny once enforced)" in err
    code, report = check()
    assert code == 0, report
    [write] = [r for r in report["reviews"] if r["violations"]]
    [violation] = write["violations"]
    assert (violation["rule"], violation["action"], violation["enforced"]) == (
        "image-tag",
        "warn",
        "deny",
    )
    code, text, _ = run(["check"])
    assert code == 0 and "warn  image-tag  [staged: deny once enforced]" in text
    code, plan, _ = run(["plan"])
    assert code == 0
    assert "Staged rules (what they would do once enforced):" in plan
    assert "deny   [image-tag] in cluster-a: image registry.example.com/platform/status-page" in (
        plan
    )
    binding.write_text(enforced)  # step 3: deny everywhere
    git(repo, "commit", "-qam", "enforce image-tag")
    code, report = check()
    assert code == 1
    [error] = report["errors"]  # the spec no longer compiles: the commit is refused
    assert (error["file"], error["path"], error["rule"]) == (
        "apps/status-page.yaml",
        "spec.image",
        "image-tag",
    )
    assert "staged" not in error["message"]


STAGED_ACTION = """action: scoped
scopedEnforcementActions:
  - {action: warn, enforcementPoints: [{name: check}, {name: plan}]}
  - {action: audit, enforcementPoints: [{name: webhook}]}
  - {action: deny, enforcementPoints: [{name: '*'}]}"""


@pytest.mark.slow
def test_a_rule_that_may_fail_closed_on_large_requests_is_warned_of(repo: Path) -> None:
    """A rule whose cost cel-python cannot count and the bound cannot fit at 3 MiB: check
    passes and warns on stderr, naming the file, line and construct."""
    folder = repo / "policies" / "rules" / "custom"
    folder.mkdir()
    (folder / "rule.yaml").write_text(
        "id: custom\ndescription: names\nvalidations:\n"
        "  - expression: object.spec.template.spec.containers.all(c, c.name.size() < 64 &&\n"
        "      strings.quote(c.name) != '')\n"
        "    message: names\n"
    )
    (folder / "binding.yaml").write_text(
        "action: deny\nmatch:\n  kinds: [{apiGroups: [apps], kinds: [Deployment]}]\n"
    )
    code, _, err = run(["check"])
    assert code == 0, err
    assert "warning: policies/rules/custom/rule.yaml:4: validations[0].expression" in err
    assert "cannot run strings.quote()" in err

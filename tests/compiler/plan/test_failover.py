"""``plan --fail``: Karmada v1.18's cluster failover, through the pure core and the command.

The scenarios of karmada v1.18.2 ``test/e2e/suites/base/failover_test.go`` ("cluster failover
testing") are held here as a static plan can hold them: the e2e taints a cluster by hand, the
plan has a ClusterTaintPolicy add the same taint when the cluster's ``Ready`` turns False. The
e2e's ``spreadConstraints`` (by cluster, one group) are in ``test_failover_spread.py``.
"""

from __future__ import annotations

import io
import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from compiler.argocd.manifests import Manifest
from compiler.cli import main
from compiler.commands.plan import failed_clusters
from compiler.plan.failover import FailoverPlan, fail, tree_taint_policies
from compiler.plan.failovertext import as_json, duration, report
from compiler.plan.text import finish
from compiler.plan.tree import policies_of
from tests.conftest import POLICIES
from webhook.base.errors import UsageError
from webhook.bundle.model import Allocatable, Bundle, ControlPlane

E2E = "test/e2e/suites/base/failover_test.go"
ON = ControlPlane(failover_gate=True, enable_no_execute_taint_eviction=True)


def taint_policy(key: str) -> dict[str, Any]:
    return {
        "name": f"{key.replace('/', '-').replace('.', '-')}-on-not-ready",
        "addOnConditions": [
            {"conditionType": "Ready", "operator": "In", "statusValues": ["False", "Unknown"]}
        ],
        "taints": [{"key": key, "effect": "NoExecute"}],
    }


NOT_READY = taint_policy("cluster.karmada.io/not-ready")


def deployment(name: str, replicas: int, *, cpu: str = "100m", stateful: bool = False) -> str:
    labels = "{fedgate.dev/stateful: 'true'}" if stateful else "{}"
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: payments, labels: {labels}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
        - name: app
          image: registry.example.com/payments/{name}:1
          resources: {{requests: {{cpu: {cpu}, memory: 64Mi}}}}
"""


def policy(name: str, placement: str, extra: str = "") -> str:
    return f"""\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {{name: {name}, namespace: payments}}
spec:
  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: {name}}}]
  placement:
{placement}
{extra}"""


TWO = "    clusterAffinity: {clusterNames: [cluster-a, cluster-b]}"
ONE_ON_A = f"""{TWO}
    replicaScheduling:
      replicaSchedulingType: Divided
      weightPreference:
        staticWeightList:
          - {{targetCluster: {{clusterNames: [cluster-a]}}, weight: 2}}
          - {{targetCluster: {{clusterNames: [cluster-b]}}, weight: 1}}"""
"""Divided by static weight: one replica runs on cluster-a, and moves to cluster-b."""


def toleration(key: str, seconds: int) -> str:
    return (
        f"    clusterTolerations: [{{key: {key}, operator: Exists, effect: NoExecute, "
        f"tolerationSeconds: {seconds}}}]"
    )


def manifests(*texts: str) -> list[Manifest]:
    found = []
    for n, text in enumerate(texts):
        for i, obj in enumerate(yaml.safe_load_all(text)):
            found.append(Manifest(f"f{n}.yaml", 1, obj, i))
    return found


def run(
    bundle: Bundle,
    texts: tuple[str, ...],
    failed: tuple[str, ...] = ("cluster-a",),
    settings: ControlPlane = ON,
    taint_policies: tuple[dict[str, Any], ...] = (NOT_READY,),
) -> FailoverPlan:
    objects = manifests(*texts)
    world = replace(bundle, karmada=replace(settings, taint_policies=taint_policies))
    return fail(objects, policies_of(m.object for m in objects), world, list(failed))


def only(plan: FailoverPlan) -> Any:
    [template] = plan.templates
    return template


# failover_test.go "cluster failover testing" / Context "Cluster failover testing with nil
# failover behavior" / It "deployment failover testing": the policy tolerates the not-ready
# NoExecute taint for 2 s; no failover.cluster: the controller's purge mode (Gracefully).
def test_e2e_nil_failover_behavior_deployment_failover(bundle: Bundle) -> None:
    result = run(
        bundle,
        (
            deployment("web", 2),
            policy("web", f"{TWO}\n{toleration('cluster.karmada.io/not-ready', 2)}"),
        ),
    )
    template = only(result)
    [eviction] = template.evictions
    assert (eviction.evicted, eviction.due, eviction.purge) == (True, 2, "Gracefully"), E2E
    assert dict(template.before) == {"cluster-a": 2, "cluster-b": 2}
    assert dict(template.after) == {"cluster-b": 2}  # Duplicated: the cluster left keeps its copy
    assert "cluster-a" not in template.after


# Context "Cluster failover testing with purgeMode gracefully" / It "taint Cluster with
# NoExecute taint": toleration of fail-test for 3 s, failover.cluster.purgeMode Gracefully.
# Context "Cluster failover testing with purgeMode directly": the same with Directly.
@pytest.mark.parametrize("purge", ["Gracefully", "Directly"])
def test_e2e_purge_mode_taint_cluster_with_no_execute_taint(bundle: Bundle, purge: str) -> None:
    result = run(
        bundle,
        (
            deployment("web", 1),
            policy(
                "web",
                f"{TWO}\n{toleration('fail-test', 3)}",
                f"  failover: {{cluster: {{purgeMode: {purge}}}}}\n",
            ),
        ),
        taint_policies=(taint_policy("fail-test"),),
    )
    [eviction] = only(result).evictions
    assert (eviction.evicted, eviction.due, eviction.purge) == (True, 3, purge), E2E
    assert "cluster-a" not in only(result).after


@pytest.mark.parametrize(
    ("purge", "sentence"),
    [
        pytest.param(
            "Directly",
            "holds the new copies back until the old copy is deleted (purgeMode Directly), which"
            " needs cluster-a to answer: nothing new starts until it does or 600 s pass",
            id="d",
        ),
        pytest.param(
            "Gracefully",
            "keeps the old copy until the new copies are healthy or 600 s pass",
            id="g",
        ),
    ],
)
def test_the_old_and_the_new_copy_overlap(bundle: Bundle, purge: str, sentence: str) -> None:
    result = run(
        bundle,
        (
            deployment("web", 1),
            policy("web", ONE_ON_A, f"  failover: {{cluster: {{purgeMode: {purge}}}}}\n"),
        ),
    )
    assert dict(only(result).after) == {"cluster-b": 1}
    [twice] = only(result).twice
    assert twice.startswith("cluster-a: ") and sentence in twice


def test_v118_defaults_evict_nothing_and_the_replicas_are_lost(bundle: Bundle) -> None:
    """Failover gate off and --enable-no-execute-taint-eviction=false by default
    (pkg/features/features.go, cmd/controller-manager/app/options/cluster_failover.go)."""
    result = run(bundle, (deployment("web", 4), policy("web", TWO)), settings=ControlPlane())
    template = only(result)
    [eviction] = template.evictions
    assert not eviction.evicted
    assert "Failover feature gate is off" in eviction.reason
    assert template.unavailable == 4
    assert dict(template.after) == dict(template.before)
    assert result.queues == ()
    assert any("nothing is evicted" in n for n in result.notes)


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        pytest.param(
            ControlPlane(failover_gate=True),
            "--enable-no-execute-taint-eviction is false",
            id="no-execute-eviction-off",
        ),
        pytest.param(
            replace(ON, enable_taint_manager=False), "--enable-taint-manager=false", id="no-tm"
        ),
    ],
)
def test_each_switch_names_itself(bundle: Bundle, settings: ControlPlane, reason: str) -> None:
    result = run(bundle, (deployment("web", 2), policy("web", TWO)), settings=settings)
    assert reason in only(result).evictions[0].reason


def test_without_a_taint_policy_the_schedule_taint_evicts_nothing(bundle: Bundle) -> None:
    result = run(bundle, (deployment("web", 2), policy("web", TWO)), taint_policies=())
    [eviction] = only(result).evictions
    assert not eviction.evicted
    assert "no ClusterTaintPolicy puts a NoExecute taint" in eviction.reason
    assert [t.describe() for t in result.taints["cluster-a"]] == [
        "cluster.karmada.io/not-ready:NoSchedule"
    ]


def test_a_toleration_without_seconds_keeps_the_binding_there(bundle: Bundle) -> None:
    forever = "    clusterTolerations: [{key: cluster.karmada.io/not-ready, operator: Exists}]"
    result = run(bundle, (deployment("web", 3), policy("web", f"{TWO}\n{forever}")))
    template = only(result)
    assert not template.evictions[0].evicted
    assert "without a time limit" in template.evictions[0].reason
    assert template.unavailable == 3


STATIC = """\
    clusterAffinity: {clusterNames: [cluster-a, cluster-b, cluster-c]}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
          - {targetCluster: {clusterNames: [cluster-a]}, weight: 2}
          - {targetCluster: {clusterNames: [cluster-b, cluster-c]}, weight: 1}"""


def test_static_weights_divide_again_over_the_clusters_left(bundle: Bundle) -> None:
    template = only(run(bundle, (deployment("web", 8), policy("web", STATIC))))
    assert dict(template.before) == {"cluster-a": 4, "cluster-b": 2, "cluster-c": 2}
    assert dict(template.after) == {"cluster-b": 4, "cluster-c": 4}


def test_two_failed_clusters_leave_one(bundle: Bundle) -> None:
    template = only(
        run(bundle, (deployment("web", 8), policy("web", STATIC)), ("cluster-a", "cluster-b"))
    )
    assert dict(template.after) == {"cluster-c": 8}
    assert [e.cluster for e in template.evictions] == ["cluster-a", "cluster-b"]


def test_a_failed_cluster_still_targeted_stays_a_candidate(bundle: Bundle) -> None:
    """cluster-b tolerates forever and stays in the binding; the TaintToleration filter lets a
    target through, so it shares cluster-a's replicas with cluster-c."""
    only_b = (
        "    clusterTolerations: [{key: cluster.karmada.io/not-ready, operator: Exists,"
        " effect: NoExecute}]"
    )
    objects = (deployment("web", 8), policy("web", f"{STATIC}\n{only_b}"))
    template = only(run(bundle, objects, ("cluster-a", "cluster-b")))
    assert [e.evicted for e in template.evictions] == [False, False]
    assert dict(template.after) == dict(template.before)


def test_nowhere_left(bundle: Bundle) -> None:
    only_a = "    clusterAffinity: {clusterNames: [cluster-a]}"
    result = run(bundle, (deployment("web", 2), policy("web", only_a)))
    assert dict(only(result).after) == {}
    assert [f.rule for f in result.findings] == ["failover.nowhere"]


@pytest.mark.parametrize(
    ("purge", "action"),
    [
        pytest.param("Gracefully", "deny", id="graceful"),
        pytest.param("Directly", "warn", id="direct"),
    ],
)
def test_a_stateful_app_in_two_places(bundle: Bundle, purge: str, action: str) -> None:
    result = run(
        bundle,
        (
            deployment("orders-db", 1, stateful=True),
            policy("orders-db", ONE_ON_A, f"  failover: {{cluster: {{purgeMode: {purge}}}}}\n"),
        ),
    )
    [finding] = result.findings
    assert (finding.rule, finding.action) == ("failover.split-brain", action)
    assert finding.message.startswith("Deployment payments/orders-db is stateful and would run")
    assert result.denied is (action == "deny")


def test_application_failover_leaves_a_stateful_app_to_the_controller_default(
    bundle: Bundle,
) -> None:
    """fedgate's ``failover.purge: direct`` renders ``failover.application``: a cluster failure
    still takes --no-execute-taint-eviction-purge-mode (Gracefully), and two copies run."""
    application = (
        "  propagateDeps: true\n"
        "  failover: {application: {purgeMode: Directly, decisionConditions: "
        "{tolerationSeconds: 60}}}\n"
    )
    result = run(
        bundle,
        (deployment("orders-db", 1, stateful=True), policy("orders-db", ONE_ON_A, application)),
    )
    assert only(result).evictions[0].purge == "Gracefully"
    assert [f.action for f in result.findings] == ["deny"]


def one_cpu_on_b(bundle: Bundle) -> Bundle:
    """The bundle with cluster-b declaring 1 cpu and 110 pods allocatable."""
    clusters = dict(bundle.clusters)
    clusters["cluster-b"] = replace(
        clusters["cluster-b"], allocatable=Allocatable(cpu=Fraction(1), pods=110)
    )
    return replace(bundle, clusters=clusters)


def test_capacity_left_names_the_apps_that_fill_it(bundle: Bundle) -> None:
    result = run(
        one_cpu_on_b(bundle),
        (
            deployment("web", 8, cpu="200m"),
            policy("web", f"{TWO}\n    replicaScheduling: {{replicaSchedulingType: Divided}}"),
        ),
    )
    load = next(load for load in result.loads if load.cluster == "cluster-b")
    assert load.after["cpu"] == Fraction(8, 5) and load.over() == ["cpu"]
    [finding] = result.findings
    assert finding.rule == "failover.capacity" and finding.action == "deny"
    assert "cluster-b would need 1600m cpu" in finding.message
    assert "Deployment payments/web" in finding.message


def test_the_storm_orders_bindings_by_due_time(bundle: Bundle) -> None:
    apps = [t for n in range(7) for t in (deployment(f"w{n}", 1), policy(f"w{n}", TWO))]
    late = (
        deployment("late", 1),
        policy("late", f"{TWO}\n{toleration('cluster.karmada.io/not-ready', 300)}"),
    )
    result = run(bundle, (*apps, *late))
    [queue] = result.queues
    assert (queue.name, queue.items) == ("ResourceBinding", 8)
    windows = {t.identity[3]: t.evictions[0].window for t in result.templates}
    assert (windows["w0"].earliest, windows["w0"].latest) == (0, 4)  # 7 at once, 3 workers
    assert (windows["late"].earliest, windows["late"].latest) == (300, 300)
    assert queue.duration == 300


def test_tree_taint_policies_are_read_from_the_tree() -> None:
    text = """\
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterTaintPolicy
metadata: {name: evict}
spec:
  addOnConditions: [{conditionType: Ready, operator: In, statusValues: ["False"]}]
  taints: [{key: cluster.karmada.io/not-ready, effect: NoExecute}]
"""
    [found] = tree_taint_policies(manifests(text))
    assert found["name"] == "evict" and found["taints"][0]["effect"] == "NoExecute"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(4, "4 s"), (89.6, "1 min 30 s"), (826, "13 min 46 s"), (7200, "2 h"), (600, "10 min")],
)
def test_duration(seconds: float, text: str) -> None:
    assert duration(seconds) == text


def test_the_report_reads_as_a_plan(bundle: Bundle) -> None:
    result = run(
        bundle,
        (deployment("orders-db", 1, stateful=True), policy("orders-db", ONE_ON_A)),
    )
    text = "\n".join(finish(report(result), color=False))
    assert "If cluster-a fails:" in text
    assert "~ Deployment payments/orders-db (team-b, stateful)" in text
    assert "the queue takes it at 0 s after the taint" in text
    assert "[failover.split-brain]" in text
    assert (
        "stateful     team-b's Deployment payments/orders-db leaves cluster-a at 0 s after" in text
    )
    assert "\nFailover: 1 eviction (done about 0 s after the taint), 0 staying" in text
    assert max(len(line) for line in text.splitlines()) <= 100
    data = as_json(result)
    assert data["templates"][0]["evictions"][0]["queueSeconds"] == {"earliest": 0, "latest": 0}
    assert data["controlPlane"]["evicts"] is True


# --- through the command -------------------------------------------------------------------


def plan_fail(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["plan", *args], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def policies_with(tmp_path: Path, karmada: str) -> Path:
    target = tmp_path / "policies"
    for name in ("clusters.yaml", "tenants.yaml", "writers.yaml"):
        target.mkdir(exist_ok=True)
        (target / name).write_text((POLICIES / name).read_text())
    (target / "karmada.yaml").write_text(karmada)
    return target


KARMADA_ON = """\
controllerManager:
  featureGates: {Failover: true}
  enableNoExecuteTaintEviction: true
  resourceEvictionRate: 0.5
clusterTaintPolicies:
  - name: not-ready
    addOnConditions: [{conditionType: Ready, operator: In, statusValues: ["False", "Unknown"]}]
    taints: [{key: cluster.karmada.io/not-ready, effect: NoExecute}]
"""


def test_command_e2e_case_in_json(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "web.yaml").write_text(
        deployment("web", 2)
        + "---\n"
        + policy("web", f"{TWO}\n{toleration('cluster.karmada.io/not-ready', 2)}")
    )
    policies = policies_with(tmp_path, KARMADA_ON)
    code, out, err = plan_fail(
        "--fail", "cluster-a", "--tree", str(tree), "--policies", str(policies), "--output", "json"
    )
    assert (code, err) == (0, "")
    data = json.loads(out)
    [template] = data["templates"]
    assert template["placementAfter"] == {"cluster-b": 2}
    assert template["evictions"][0] == {
        "cluster": "cluster-a",
        "replicas": 2,
        "evicted": True,
        "reason": "evicted after its tolerationSeconds: it tolerates "
        "cluster.karmada.io/not-ready:NoExecute for 2 s",
        "dueSeconds": 2,
        "queueSeconds": {"earliest": 2, "latest": 2},
        "purgeMode": "Gracefully",
    }
    assert data["storm"] == [
        {
            "queue": "ResourceBinding",
            "items": 1,
            "workers": 3,
            "ratePerWorker": 0.5,
            "throughput": 1.5,
            "seconds": 2,
        }
    ]


def test_command_unknown_cluster_lists_the_known_ones(tmp_path: Path) -> None:
    code, out, err = plan_fail("--fail", "cluster-a,cluster-x", "--tree", str(tmp_path))
    assert code == 2 and out == ""
    assert "unknown cluster cluster-x; the bundle has cluster-a, cluster-b, cluster-c" in err


@pytest.mark.parametrize("value", ["", ",", "cluster-a,"])
def test_command_empty_names(tmp_path: Path, value: str) -> None:
    code, _, err = plan_fail("--fail", value, "--tree", str(tmp_path))
    assert code == 2 and "give cluster names separated by commas" in err


def test_command_refuses_options_against_head(tmp_path: Path) -> None:
    code, _, err = plan_fail("--fail", "cluster-a", "--all")
    assert code == 2 and "--all: not with --fail" in err


def test_command_bad_karmada_yaml(tmp_path: Path) -> None:
    policies = policies_with(
        tmp_path,
        "controllerManager:\n  resourceEvictionRate: -1\n  noExecuteTaintEvictionPurgeMode: Never\n"
        "  gracefulEvictionTimeout: soon\n  enableTaintManagr: true\n",
    )
    code, _, err = plan_fail(
        "--fail", "cluster-a", "--tree", str(tmp_path), "--policies", str(policies)
    )
    assert code == 1
    for message in (
        "resourceEvictionRate: must not be negative, not -1",
        "'Never' is not one of Directly, Gracefully",
        "'soon' is not a duration",
        "unknown key 'enableTaintManagr': did you mean 'enableTaintManager'?",
    ):
        assert message in err


@pytest.mark.slow
def test_command_with_the_repository(platform_repo: Path) -> None:
    """The example repository with v1.18's defaults: nothing is evicted, and the text says
    why; with the failover switched on, orders-db (stateful, purge: direct, rendered into both
    failover behaviours) leaves cluster-a Directly: a warning that the partitioned copy runs
    on, not the denial it was when only application failover was rendered."""
    code, out, err = plan_fail("--fail", "cluster-a")
    assert (code, err) == (0, "")
    assert "none: the Failover feature gate is off" in out
    (platform_repo / "policies" / "karmada.yaml").write_text(KARMADA_ON)
    code, out, _ = plan_fail("--fail", "cluster-a")
    assert code == 0, out
    assert (
        "warn         [failover.split-brain] Deployment platform-demo/orders-db is stateful" in out
    )
    assert "deny " not in out
    # docs/failover.md shows this run: its lines are the command's
    docs = (Path(__file__).resolve().parents[3] / "docs" / "failover.md").read_text()
    example = docs.split("## Reading the report", 1)[1].split("```", 2)[1].splitlines()
    shown = [line for line in example[1:] if line.strip() and "..." not in line]
    assert len(shown) > 20
    assert [line for line in shown if line not in out.splitlines()] == []


HEADROOM_ON_B = """\
  - name: cluster-b
    allocatable: {cpu: "5", memory: 64Gi, pods: 110}
    failoverHeadroom: 20
"""


@pytest.mark.slow
def test_the_failover_loads_are_neither_the_bill_nor_the_ceiling(platform_repo: Path) -> None:
    """plan --fail moves the replicas Karmada places at first (the template's, a FederatedHPA's
    bounds applied), not the plan's bill (the quota rule's floor: team-a 3.9 CPU) nor its
    ceiling (autoscalers at their maximum: 7.9): cluster-b, 5 CPU of which 20% kept free,
    goes from 2.1 to 4.8 CPU when cluster-a fails, into its headroom and not over it, as
    before the bill became the quota rule's (the example's plan --fail, byte for byte)."""
    (platform_repo / "policies" / "karmada.yaml").write_text(KARMADA_ON)
    clusters = platform_repo / "policies" / "clusters.yaml"
    clusters.write_text(clusters.read_text().replace("  - name: cluster-b\n", HEADROOM_ON_B))
    code, out, err = plan_fail("--fail", "cluster-a", "--output", "json")
    assert (code, err) == (0, "")
    document = json.loads(out)
    loads = {load["cluster"]: load for load in document["capacity"]}
    b = loads["cluster-b"]
    assert (b["before"], b["after"]) == (
        {"cpu": "2100m", "memory": "3328Mi", "pods": 8},
        {"cpu": "4800m", "memory": "7424Mi", "pods": 15},
    )
    assert (b["over"], b["intoHeadroom"]) == ([], ["cpu"])
    web = next(t for t in document["templates"] if t["name"] == "web-frontend")
    assert (web["placementBefore"], web["placementAfter"]) == (
        {"cluster-a": 1, "cluster-b": 1},
        {"cluster-b": 2},
    )  # the FederatedHPA's minReplicas (2), not its maxReplicas (10)
    assert [f["cluster"] for f in document["findings"] if f["rule"] == "failover.headroom"] == [
        "cluster-b"
    ]
    code, out, _ = plan_fail("--output", "json")
    team_a = next(t for t in json.loads(out)["tenants"] if t["tenant"] == "team-a")
    assert (team_a["used"]["cpu"], team_a["ceiling"]["cpu"]) == ("3900m", "7900m")


def test_a_duplicated_stateful_app_starts_nothing_new(bundle: Bundle) -> None:
    """Duplicated: cluster-b already runs its copy; the eviction starts none, so no second
    writer comes of the failover (the app runs in both by design)."""
    result = run(bundle, (deployment("cache", 1, stateful=True), policy("cache", TWO)))
    template = only(result)
    assert dict(template.after) == {"cluster-b": 1}
    assert template.twice == ()
    assert "nothing new starts: the clusters left already run it" in template.notes
    assert result.findings == ()


@given(st.text(alphabet=st.sampled_from("abc-,x \t"), max_size=30))
def test_fail_names_parse_or_fail_with_the_known_ones(text: str) -> None:
    """Whatever --fail holds: known names, each once, in the order given, or a usage error
    that lists the bundle's clusters."""
    known = ["a", "b", "c"]
    try:
        names = failed_clusters(text, known)
    except UsageError as exc:
        assert "the bundle has a, b, c" in str(exc)
    else:
        assert names and set(names) <= set(known) and len(names) == len(set(names))
        assert names == [n.strip() for n in dict.fromkeys(n.strip() for n in text.split(","))]


def test_a_pod_template_mounting_a_claim_is_stateful(bundle: Bundle) -> None:
    """The same test of statefulness as the rule stateful-purge.targets
    (engine/targets/stateful_purge.py)."""
    text = deployment("queue", 1).replace(
        "      containers:\n",
        "      volumes: [{name: data, persistentVolumeClaim: {claimName: queue-data}}]\n"
        "      containers:\n",
    )
    result = run(bundle, (text, policy("queue", ONE_ON_A)))
    assert only(result).stateful
    assert [f.rule for f in result.findings] == ["failover.split-brain"]


@pytest.mark.parametrize(
    ("tolerations", "reason"),
    [
        pytest.param(
            toleration("cluster.karmada.io/not-ready", 0),
            "evicted at once: it tolerates cluster.karmada.io/not-ready:NoExecute for 0 s",
            id="zero-seconds",
        ),
        pytest.param(
            toleration("other", 60),
            "evicted at once: it does not tolerate cluster.karmada.io/not-ready:NoExecute",
            id="another-key",
        ),
    ],
)
def test_why_at_once(bundle: Bundle, tolerations: str, reason: str) -> None:
    result = run(bundle, (deployment("web", 1), policy("web", f"{TWO}\n{tolerations}")))
    assert only(result).evictions[0].reason == reason


AFFINITY_E2E = "test/e2e/suites/base/clusteraffinities_test.go"


# clusteraffinities_test.go "[Failover] member cluster become unReachable" / It "failover
# testing with propagate deployment by clusterAffinities": group1 (member1) then group2
# (member2), the not-ready NoExecute taint tolerated 2 s; member1 fails, the deployment
# appears on member2 (the next affinity term).
def test_e2e_failover_with_cluster_affinities(bundle: Bundle) -> None:
    affinities = (
        "    clusterAffinities:\n"
        "      - {affinityName: group1, clusterNames: [cluster-a]}\n"
        "      - {affinityName: group2, clusterNames: [cluster-b]}\n"
        f"{toleration('cluster.karmada.io/not-ready', 2)}"
    )
    template = only(run(bundle, (deployment("web", 2), policy("web", affinities))))
    assert dict(template.before) == {"cluster-a": 2}, AFFINITY_E2E
    [eviction] = template.evictions
    assert (eviction.evicted, eviction.due) == (True, 2), AFFINITY_E2E
    assert dict(template.after) == {"cluster-b": 2}, AFFINITY_E2E

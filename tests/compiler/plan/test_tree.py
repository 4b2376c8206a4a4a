"""``fedgate plan --tree``: the JSON contract on hand-written trees (every template, policy and
override form Karmada reads), and bad input."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

from compiler.cli import main
from tests.conftest import POLICIES

TEAM_A_APP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: demo-http, namespace: platform-demo}
spec:
  replicas: 6
  selector: {matchLabels: {app: demo-http}}
  template:
    metadata: {labels: {app: demo-http}}
    spec:
      containers:
        - name: demo-http
          image: platform/demo-http:1.0
          resources: {requests: {cpu: 100m, memory: 64Mi}}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: demo-http, namespace: platform-demo}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: demo-http}]
  placement:
    clusterAffinity: {clusterNames: [cluster-a, cluster-b]}
    replicaScheduling:
      replicaSchedulingType: Divided
      weightPreference:
        staticWeightList:
          - {targetCluster: {clusterNames: [cluster-a]}, weight: 2}
          - {targetCluster: {clusterNames: [cluster-b]}, weight: 1}
"""

DEPRECATED_FORM = """\
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: mirror, namespace: platform-demo}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: demo-http}]
  targetCluster: {clusterNames: [cluster-b]}
  overriders:
    imageOverrider: [{component: Registry, operator: replace, value: mirror.example.cn}]
"""


def plan_tree(tree: Path, *extra: str) -> tuple[int, dict[str, Any], str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["plan", "--tree", str(tree), "--policies", str(POLICIES), "--output", "json", *extra],
        stdout=out,
        stderr=err,
    )
    return code, json.loads(out.getvalue()), err.getvalue()


def write(tree: Path, **files: str) -> Path:
    for name, text in files.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    return tree


def test_the_contract_on_a_divided_deployment_with_a_deprecated_override(tmp_path: Path) -> None:
    """Image platform/demo-http:1.0 with mirror.example.cn for cluster-b is
    mirror.example.cn/platform/demo-http:1.0 (Karmada's SplitHostname), and an OverridePolicy
    in the deprecated targetCluster/overriders form applies."""
    code, report, _ = plan_tree(
        write(tmp_path, **{"app.yaml": TEAM_A_APP, "op.yaml": DEPRECATED_FORM})
    )
    [template] = report["templates"]
    assert {
        k: template[k] for k in ("apiVersion", "kind", "namespace", "name", "policy", "placement")
    } == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "namespace": "platform-demo",
        "name": "demo-http",
        "policy": {"kind": "PropagationPolicy", "namespace": "platform-demo", "name": "demo-http"},
        "placement": {"cluster-a": 4, "cluster-b": 2},
    }
    images = {
        c: (o["spec"]["replicas"], o["spec"]["template"]["spec"]["containers"][0]["image"])
        for c, o in template["clusters"].items()
    }
    assert images == {
        "cluster-a": (4, "platform/demo-http:1.0"),
        "cluster-b": (2, "mirror.example.cn/platform/demo-http:1.0"),
    }
    assert template["overrides"] == {
        "cluster-a": [],
        "cluster-b": ["OverridePolicy platform-demo/mirror"],
    }
    # no registry host: the tenant's registry rule denies cluster-a's copy; cluster-b's
    # comes from the mirror
    assert {c: [v["rule"] for v in vs] for c, vs in template["violations"].items()} == {
        "cluster-a": ["registry-allowed"]
    }
    assert code == 1


def test_a_per_cluster_denial_names_the_cluster_the_override_and_the_field(
    tmp_path: Path,
) -> None:
    """One verdict everywhere: a denial on a member copy names the cluster, the
    override that produced the value and the spec field. A CEL rule has no pointer of its own:
    the field is the one the override rule wrote (the JSON had no field; the text said only
    "set by OverridePolicy platform-demo/mirror rule 0")."""
    latest = DEPRECATED_FORM.replace(
        "[{component: Registry, operator: replace, value: mirror.example.cn}]",
        "[{component: Registry, operator: replace, value: registry.example.com},"
        " {component: Tag, operator: replace, value: latest}]",
    )
    app = TEAM_A_APP.replace("image: platform/", "image: registry.example.com/platform/")
    tree = write(tmp_path, **{"app.yaml": app, "op.yaml": latest})
    code, report, _ = plan_tree(tree)
    [template] = report["templates"]
    [denial] = template["violations"]["cluster-b"]
    assert (denial["rule"], denial["override"], denial["overrideRule"], denial["fields"]) == (
        "image-tag",
        "OverridePolicy platform-demo/mirror",
        0,
        ["/spec/template/spec/containers/0/image"],
    )
    assert code == 1
    out = io.StringIO()
    assert main(["plan", "--tree", str(tree), "--policies", str(POLICIES)], stdout=out) == 1
    text = " ".join(out.getvalue().split())
    assert (
        "deny [image-tag] in cluster-b: image registry.example.com/platform/demo-http:latest is "
        "not pinned: give it a tag other than latest, or a digest (set by OverridePolicy "
        "platform-demo/mirror rule 0 at /spec/template/spec/containers/0/image)"
    ) in text


def test_a_failing_override_keeps_the_cluster_placed_but_without_a_copy(tmp_path: Path) -> None:
    broken = DEPRECATED_FORM.replace(
        "    imageOverrider: [{component: Registry, operator: replace, value: mirror.example.cn}]",
        "    plaintext: [{path: /spec/template/spec/nothing/here, operator: replace, value: 1}]",
    )
    code, report, _ = plan_tree(write(tmp_path, **{"app.yaml": TEAM_A_APP, "op.yaml": broken}))
    [template] = report["templates"]
    assert set(template["placement"]) == {"cluster-a", "cluster-b"}
    assert set(template["clusters"]) == {"cluster-a"}
    [failure] = template["violations"]["cluster-b"]
    assert failure["rule"] == "karmada.override" and failure["action"] == "deny"
    assert "OverridePolicy platform-demo/mirror (rule 0)" in failure["message"]
    assert code == 1


def test_a_field_overrider_patches_the_text_inside_a_configmap(tmp_path: Path) -> None:
    tree = write(
        tmp_path,
        **{
            "cm.yaml": (
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: platform-demo}\n"
                'data:\n  app.json: \'{"level":"info","region":"none"}\'\n'
                "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\n"
                "metadata: {name: app, namespace: platform-demo}\nspec:\n"
                "  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: app}]\n"
                "  placement: {clusterAffinity: {clusterNames: [cluster-b]}}\n"
                "---\napiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\n"
                "metadata: {name: region, namespace: platform-demo}\nspec:\n"
                "  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: app}]\n"
                "  overrideRules:\n    - overriders:\n        fieldOverrider:\n"
                "          - fieldPath: /data/app.json\n"
                "            json: [{subPath: /region, operator: replace, value: eu-central}]\n"
            )
        },
    )
    code, report, _ = plan_tree(tree)
    [template] = report["templates"]
    assert template["placement"] == {"cluster-b": None}
    assert template["clusters"]["cluster-b"]["data"] == {
        "app.json": '{"level":"info","region":"eu-central"}'
    }
    assert code == 0


def test_invalid_manifests_are_errors_and_the_json_still_prints(tmp_path: Path) -> None:
    tree = write(
        tmp_path,
        **{
            "broken.yaml": "kind: [\n",
            "nokind.yaml": "apiVersion: v1\nmetadata: {name: x}\n",
            # (not namespace n: Argo CD's go-yaml reads a plain n as false)
            "twice/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\n",
            "twice/b.json": json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": "c", "namespace": "ns"},
                }
            ),
        },
    )
    code, report, _ = plan_tree(tree)
    assert code == 1
    assert sorted((e["file"], e["path"]) for e in report["errors"]) == [
        ("broken.yaml", ""),
        ("nokind.yaml", "kind"),
        ("twice/b.json", ""),
    ]
    assert [t["name"] for t in report["templates"]] == ["c", "c"]


def test_a_missing_tree_is_a_usage_error(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["plan", "--tree", str(tmp_path / "nowhere"), "--policies", str(POLICIES)],
        stdout=out,
        stderr=err,
    )
    assert code == 2 and "no such file or directory" in err.getvalue()


def test_the_text_shows_what_each_member_runs(tmp_path: Path) -> None:
    """The plan guide: every template "in the same blocks as above", which show each member's
    `N x image`. A hand-written Deployment's block showed the placement and the overrides'
    names only, never the image a regional override made: the JSON alone had it."""
    tree = write(tmp_path, **{"app.yaml": TEAM_A_APP, "op.yaml": DEPRECATED_FORM})
    out = io.StringIO()
    assert main(["plan", "--tree", str(tree), "--policies", str(POLICIES)], stdout=out) == 1
    lines = out.getvalue().splitlines()
    start = lines.index("    placement    cluster-a 4, cluster-b 2")
    assert lines[start + 2 : start + 6] == [
        "    cluster-a    4 x platform/demo-http:1.0",
        "    cluster-b    2 x mirror.example.cn/platform/demo-http:1.0",
        "                 overrides OverridePolicy platform-demo/mirror",
        "    deny   [registry-allowed] in cluster-a: image platform/demo-http:1.0 does not come "
        "from the",
    ]


FHPA = """\
apiVersion: autoscaling.karmada.io/v1alpha1
kind: FederatedHPA
metadata: {{name: demo-http, namespace: platform-demo}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: demo-http}}
  {bounds}
"""


def test_a_federated_hpa_sets_its_target_s_replicas_first(tmp_path: Path) -> None:
    """The live federation ran web-frontend 1 + 1 where plan --tree said cluster-a 1: Karmada's
    FederatedHPA controller raises a template below minReplicas to it (and lowers one above
    maxReplicas) before any metric is read; 0 stays 0 (scaling disabled)."""
    cases = {
        "minReplicas: 9\n  maxReplicas: 12": {"cluster-a": 6, "cluster-b": 3},
        "minReplicas: 1\n  maxReplicas: 3": {"cluster-a": 2, "cluster-b": 1},
        "minReplicas: 2\n  maxReplicas: 10": {"cluster-a": 4, "cluster-b": 2},
        "maxReplicas: 5": {"cluster-a": 3, "cluster-b": 2},
    }
    for number, (bounds, placement) in enumerate(cases.items()):
        tree = write(
            tmp_path / str(number),
            **{"app.yaml": TEAM_A_APP, "fhpa.yaml": FHPA.format(bounds=bounds)},
        )
        _, report, _ = plan_tree(tree)
        [template] = report["templates"]
        assert template["placement"] == placement, bounds
    absent = TEAM_A_APP.replace("  replicas: 6\n", "")
    tree = write(
        tmp_path / "default",
        **{"app.yaml": absent, "fhpa.yaml": FHPA.format(bounds="minReplicas: 2\n  maxReplicas: 4")},
    )
    [template] = plan_tree(tree)[1]["templates"]
    assert template["placement"] == {"cluster-a": 1, "cluster-b": 1}
    stopped = TEAM_A_APP.replace("replicas: 6", "replicas: 0")
    tree = write(
        tmp_path / "zero",
        **{
            "app.yaml": stopped,
            "fhpa.yaml": FHPA.format(bounds="minReplicas: 2\n  maxReplicas: 4"),
        },
    )
    [template] = plan_tree(tree)[1]["templates"]
    assert sum(template["placement"].values()) == 0


def test_a_staged_rule_on_a_tree_says_what_it_would_do_once_enforced(tmp_path: Path) -> None:
    """``plan --tree`` judges at the plan's point: image-tag warning there for now is listed
    under staged rules with its deny to come, and the tree plans (exit 0)."""
    from tests.compiler.plan.test_plan import STAGED_IMAGE_TAG  # noqa: PLC0415

    policies = tmp_path / "policies"
    shutil.copytree(POLICIES, policies)
    binding = policies / "rules" / "image-tag" / "binding.yaml"
    binding.write_text(binding.read_text().replace("action: deny", STAGED_IMAGE_TAG, 1))
    app = TEAM_A_APP.replace("platform/demo-http:1.0", "registry.example.com/platform/x:latest")
    tree = write(tmp_path / "tree", **{"app.yaml": app})
    out = io.StringIO()
    args = ["plan", "--tree", str(tree), "--policies", str(policies)]
    assert main(args, stdout=out) == 0
    text = out.getvalue()
    staged = " ".join(text[text.index("Staged rules (what they would do") :].split())
    assert staged.startswith(
        "Staged rules (what they would do once enforced): deny [image-tag] in cluster-a: image "
        "registry.example.com/platform/x:latest is not pinned: give it a tag other than latest, "
        "or a digest (in the template) (Deployment platform-demo/demo-http; warn at the plan "
        "for now) deny [image-tag] in cluster-b:"
    )

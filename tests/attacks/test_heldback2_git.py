"""Git's side doors of the second held-back set: a hand-written manifest in a tenant's synced
folder that Argo CD reads differently from ``fedgate check``.

Argo CD's repo server splits and decodes manifests with apimachinery's YAML-or-JSON decoder
(gitops-engine ``kube.SplitYAML`` -> ``yaml.NewYAMLOrJSONDecoder`` -> sigs.k8s.io/yaml over
go-yaml v2) into ``interface{}`` values: a plain ``y``/``Y``/``n``/``N`` is a boolean and
``1e3`` the number 1000 (go-yaml v2 ``resolve``), where YAML 1.1 as PyYAML reads it leaves
both text. Each case is a file Argo CD would apply with a value the rules deny; check must deny
it too (the answer upstream's decoder calls for, not what check said)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: door, namespace: platform-demo}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: door}}}}
  template:
    metadata: {{labels: {{app: door}}}}
    spec:
      hostNetwork: {host_network}
      containers:
        - name: app
          image: registry.example.com/platform/door:{tag}
          resources: {{requests: {{cpu: 100m, memory: 64Mi}}}}
          securityContext: {{privileged: {privileged}}}
"""

JSON_DEPLOYMENT = """\
{"apiVersion": "apps/v1", "kind": "Deployment",
 "metadata": {"name": "door", "namespace": "platform-demo"},
 "spec": {"replicas": 1e3, "selector": {"matchLabels": {"app": "door"}},
  "template": {"metadata": {"labels": {"app": "door"}},
   "spec": {"containers": [{"name": "app", "image": "registry.example.com/platform/door:1.0.0",
    "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}}}
"""


def _yaml(**values: str) -> str:
    fields = {"replicas": "1", "host_network": "false", "tag": "1.0.0", "privileged": "false"}
    return DEPLOYMENT.format(**{**fields, **values})


CASES = [
    # go-yaml v2 resolve: "y" is true; PyYAML's YAML 1.1 booleans do not include it
    ("privileged-y.yaml", _yaml(privileged="y"), "pod-security-baseline"),
    # "Y" too, for the pod's hostNetwork
    ("host-network-capital-y.yaml", _yaml(host_network="Y"), "pod-security-baseline"),
    # go-yaml v2 reads 1e3 as the float 1000 (yamlStyleFloat), encoding/json writes 1000
    ("replicas-exponent.yaml", _yaml(replicas="1e3"), "max-replicas"),
    # a .json manifest is decoded by encoding/json: 1e3 is the number 1000
    ("replicas-exponent.json", JSON_DEPLOYMENT, "max-replicas"),
    # a guard: Argo CD reads .yml too (manifestFile), and so must check
    ("latest.yml", _yaml(tag="latest"), "image-tag"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "text", "rule"), CASES, ids=[c[0] for c in CASES])
def test_check_reads_a_manifest_as_argo_cd_applies_it(
    platform_repo: Path, name: str, text: str, rule: str
) -> None:
    path = platform_repo / "rendered" / "platform-demo" / "extra" / name
    path.parent.mkdir()
    path.write_text(text)
    code, out, _ = run(["check", "--output", "json"])
    report = json.loads(out)
    denied = {v["rule"] for r in report["reviews"] if not r["allowed"] for v in r["violations"]}
    assert code == 1 and rule in denied, report

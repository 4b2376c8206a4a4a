"""A bundle with one hand-written rule added to policies/, and a Deployment to review with it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.conftest import POLICIES
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle

DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "platform-demo", "labels": {"tier": "gold"}},
    "spec": {
        "replicas": 3,
        "template": {
            "spec": {
                "containers": [
                    {
                        "name": "web",
                        "image": "registry.example.com/platform/web:1",
                        "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
                    }
                ]
            }
        },
    },
}


def bundle_with(tmp_path: Path, rule: str, binding: str, backend: str = "cel-expr") -> Bundle:
    """policies/ copied under ``tmp_path`` with rule ``custom`` (RULE after its id and
    description) and its BINDING, loaded with ``backend``."""
    policies = tmp_path / "policies"
    shutil.copytree(POLICIES, policies)
    folder = policies / "rules" / "custom"
    folder.mkdir()
    (folder / "rule.yaml").write_text("id: custom\ndescription: a test rule\n" + rule)
    (folder / "binding.yaml").write_text(binding)
    return load_bundle(policies, backend)


MATCH = "match:\n  kinds: [{apiGroups: [apps], kinds: [Deployment]}]\n"
"""A rule's match on Deployments."""


HOSTILE_RULE = (
    "validations:\n"
    "  - expression: object.spec.l.all(x, object.spec.big == object.spec.big2)\n"
    "    message: hostile\n"
)
"""A rule that compares two large lists once per item of a third: on cel-python about 5 ms an
item with 2,000-element lists, so 5,000 items (within the 10,000-iteration budget) are about
25 seconds of CPU."""


def hostile(items: int) -> dict[str, Any]:
    big = list(range(2000))
    return {
        **DEPLOYMENT,
        "spec": {**DEPLOYMENT["spec"], "l": list(range(items)), "big": big, "big2": big},
    }

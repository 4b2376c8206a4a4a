"""Write the example bundle as the ConfigMap the webhook Deployment mounts (`make deploy-bundle`).

    .venv/bin/python deploy/bundle_configmap.py > deploy/webhook/policies.yaml

The same as `fedgate bundle`, for fedgate's own example world: policies/ and the index of the
examples' rendered tree (tests/golden/examples). A test fails while deploy/webhook/policies.yaml
is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from compiler.commands.bundle import configmap, index_of  # noqa: E402
from webhook.bundle.load import load_bundle  # noqa: E402

POLICIES = ROOT / "policies"
EXAMPLE_TREE = ROOT / "tests" / "golden" / "examples"


def example_configmap() -> bytes:
    index, _, _ = index_of(EXAMPLE_TREE, load_bundle(POLICIES))
    return configmap(POLICIES, index)


if __name__ == "__main__":
    sys.stdout.buffer.write(example_configmap())

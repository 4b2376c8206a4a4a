"""policies/ with image-tag rolled out in steps (warn, audit, deny by enforcement point), and the
request it catches: for the tests of enforcement points in the engine, the CLI and the server."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import EXAMPLES, POLICIES

STAGED_ACTION = """action: scoped
scopedEnforcementActions:
  - action: warn
    enforcementPoints: [{name: check}]
  - action: audit
    enforcementPoints: [{name: webhook}]
  - action: deny
    enforcementPoints: [{name: "*"}]"""
"""image-tag rolled out in steps: warns in pre-commit, audits at the webhook, denies in the plan
and the audit of live objects."""
LATEST = EXAMPLES / "requests" / "deployment-latest-tag-denied.json"


def staged_policies(directory: Path) -> Path:
    """The default policies with image-tag staged (``STAGED_ACTION``), its match unchanged."""
    policies = directory / "policies"
    shutil.copytree(POLICIES, policies)
    binding = policies / "rules" / "image-tag" / "binding.yaml"
    binding.write_text(binding.read_text().replace("action: deny", STAGED_ACTION, 1))
    return policies

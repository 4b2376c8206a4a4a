"""The exception the end-to-end tests grant (demo-http may run :latest until 2026-12-31), as
the platform writes it in policies/exceptions/legacy-demo.yaml."""

from __future__ import annotations

LEGACY_EXCEPTION = """\
apiVersion: fedgate.dev/v1alpha1
kind: PolicyException
metadata: {name: legacy-demo}
spec:
  rules: [image-tag]
  match: {namespaces: [platform-demo], names: [demo-http],
          kinds: [{apiGroups: [apps], kinds: [Deployment]}]}
  reason: the vendor image has no tag until its 4.0
  owner: platform@example.com
  expires: 2026-12-31
"""
LIFTED = "exception legacy-demo (owner platform@example.com, expires 2026-12-31) lifts image-tag"

"""fedgate's rule engine (pure), its policy bundle, and the admission webhook shell.

- ``engine/``: ``review(request, bundle) -> Decision``, the only place rules run (compile,
  check, plan, ``fedgate review``, ``fedgate test`` and the webhook all call it); a new built-in
  rule starts in ``engine/builtins.py``, a new CEL function in ``engine/cel/library.py``.
- ``bundle/``: the platform team's ``policies/`` read into a ``Bundle`` (clusters, tenants,
  writers, rules, ValidatingAdmissionPolicies, the index of the synced tree).
- ``karmada/``: Karmada v1.18 simulated (which policy claims a template, placement, overrides);
  a new overrider starts in ``karmada/overriders.py``.
- ``shell/``: the server around ``review`` (gunicorn, the Flask view, settings, metrics, audit
  lines, bundle reload, the Kubernetes API client and the live index);
- ``base/``: what every side shares (errors, YAML with lines, field checks, quantities, label
  selectors, the ownership ledger, JSON value tests);
- policy suites (``suites.py``, what ``fedgate test`` and pytest run), a Decision in words
  (``explain.py``), live objects judged (``scan.py``) and reported (``policyreport.py``).

A new app spec field or CLI option is the compiler's (``compiler/__init__.py``). Nothing here
imports the compiler (an import-linter contract).
"""

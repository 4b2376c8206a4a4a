"""fedgate's rule engine (pure), its policy bundle, and the admission webhook shell.

- ``engine/``: ``review(request, bundle) -> Decision``, the only place rules run (compile,
  check, plan, ``fedgate review``, ``fedgate test`` and the webhook all call it); a new built-in
  rule starts in ``engine/builtins.py``, a new CEL function in ``engine/cel/library.py``.
- ``bundle/``: the platform team's ``policies/`` read into a ``Bundle`` (clusters, tenants,
  writers, rules, ValidatingAdmissionPolicies, the index of the synced tree).
- ``karmada/``: Karmada v1.18 simulated (which policy claims a template, placement, overrides);
  a new overrider starts in ``karmada/overriders.py``.
- the server shell: ``app.py`` (the Flask view), ``asgi.py`` and ``server.py`` (gunicorn),
  ``settings.py``, ``metrics.py``, ``audit.py``, ``response.py``, ``reload.py``, ``heap.py``;
- policy suites (``suites.py``, what ``fedgate test`` and pytest run) and a Decision in words
  (``explain.py``);
- the base both sides share: ``errors.py``, ``yamlsource.py`` (YAML with lines),
  ``schema.py``, ``quantity.py``, ``ledger.py`` (the ownership annotation), ``values.py``,
  ``memo.py``, ``jsontext.py``.

A new app spec field or CLI option is the compiler's (``compiler/__init__.py``). Nothing here
imports the compiler (an import-linter contract).
"""

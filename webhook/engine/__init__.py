"""The rule engine: pure functions from (request, bundle) to a Decision; no I/O, no web.

``review.py`` runs every rule on one request. A new built-in (Python) rule: its check in the
module of its family (``ownership.py``, ``tenancy.py``, ``retain.py``, ``quota.py``,
``targets.py`` for what a write does to other objects, ``components.py`` for Karmada's own
writers), registered with what it matches in ``builtins.BUILTINS``, and a folder
``policies/rules/<id>/`` with ``builtin: <id>``, its binding and its suite. CEL rules need no
code: ``celrules.py`` runs them on the engines of ``cel/``. Who writes is ``identity.py``; what
a rule reads of a request, ``context.py``; the answer, ``decision.py``.
"""

"""The rule engine: pure functions from (request, bundle) to a Decision; no I/O, no web.

``review.py`` runs every rule on one request. A new built-in (Python) rule: its check in the
module of its family (``ownership.py``, ``tenancy.py``, ``retain.py``, ``quota.py``,
``components.py`` for Karmada's own writers, ``controllers.py`` for the control plane's), or,
for a rule about the objects a write acts on, a module of its own in ``targets/`` (one per rule:
``targets/member_copies.py``, ``targets/takeover.py``, ...); registered with what it matches in
``builtins.py`` (``BUILTINS``), and a folder ``policies/rules/<id>/`` with ``builtin: <id>``,
its binding and its suite. CEL rules need no code: ``celruntime.py`` compiles them once per
bundle and ``celrules.py`` runs them on a request with the engines of ``cel/`` (a new CEL
function: ``cel/library.py``). Who writes is ``identity.py``; what a rule reads of a request,
``context.py``; the answer, ``decision.py`` (violations, warnings, audit annotations).
"""

"""Karmada v1.18 as fedgate simulates it: pure functions over manifests, no I/O.

Ported from karmada-io/karmada at tag v1.18.0 (each module names its source): which policy
claims a template (``detector``), the replicas the default interpreter reads and writes
(``interpreter``), the scheduler's placement and Webster division (``scheduler``,
``division``), the override manager and its overriders (``overridemanager``, ``overriders``,
``imageparser``, ``jsonpatch``, ``encoding``), label and cluster selectors (``selector``), and
the whole path of one template (``propagation``). ``fedgate plan`` and the admission webhook
both use it; it imports nothing from the compiler.

A new overrider: how Karmada applies it in ``overriders.py`` (``apply_overriders``), what
Karmada's API refuses of it in ``validation.py``, and its order in ``overridemanager.py``.
"""

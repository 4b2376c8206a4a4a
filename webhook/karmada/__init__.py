"""Karmada v1.18 as fedgate simulates it: pure functions over manifests, no I/O.

Ported from karmada-io/karmada at tag v1.18.0 (each module names its source): which policy
claims a template (``detector.py``), the replicas the default interpreter reads and writes
(``interpreter.py``), the scheduler's placement and Webster division (``scheduler.py``,
``division.py``), the override manager and its overriders (``overridemanager.py``,
``overriders.py``, ``imageparser.py``, ``jsonpatch.py``, ``encoding.py``), label and cluster
selectors (``selector.py``), and the whole path of one template (``propagation.py``).
``fedgate plan`` and the admission webhook both use it; it imports nothing from the compiler.

A new overrider: how Karmada applies it in ``overriders.py`` (``apply_overriders``), what
Karmada's API refuses of it in ``validation.py``, and its order in ``overridemanager.py``.
"""

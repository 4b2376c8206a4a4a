"""``fedgate compile``: app specs and a bundle in, the rendered tree out, and nothing half written.

- ``core.py``: the pure core (``compile``): specs and a bundle in, manifest bytes out;
- ``validate.py``: checks across apps (duplicates, shared data, quotas) on ``summary.py``'s
  summaries; ``admission.py``: the rule engine run on every rendered object and member copy;
- ``canonical.py``: the one YAML form of rendered manifests;
- ``write.py``: the only code that writes the rendered tree to disk (atomically, only its own
  files); ``wipe.py``: refuses a change that would empty a tenant or the tree;
- ``incremental.py``: compiles only the spec files that changed (its cache: ``statmemo.py``,
  ``resolve.py``, ``celparser.py``).

How each object is made is in ``compiler/render/`` (one module per step); the app spec in
``compiler/spec/``.
"""

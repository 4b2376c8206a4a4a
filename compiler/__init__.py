"""fedgate's compiler: app specs in, Karmada manifests out; and the ``fedgate`` command line.

Where to start (docs/layout.md has the whole map):

- a new app spec field: ``spec/model.py`` (the frozen value), ``spec/load.py`` (reading and
  checking it), the render step that writes it (``render/``: one module per step, in the order
  of ``render/pipeline.py``'s STEPS), and docs/app-spec.md;
- a check across apps (duplicates, shared data, quotas): ``compile/validate.py`` on
  ``compile/summary.py``'s summaries; what compile writes and how: ``compile/``;
- what ``fedgate check`` and the pre-commit hook judge of the synced tree: ``check/``;
- a new command or option: ``commands/<command>.py`` (``add_arguments``; options every
  command shares are in ``commands/common.py``), listed in ``cli.py`` (COMMANDS); docs/cli.md;
- what Argo CD reads and permits: ``argocd/``; what ``fedgate plan`` shows: ``plan/``.

The rules themselves are not here: compile, check and plan call the engine of
``webhook/engine/`` (``webhook/engine/review.py``) and the Karmada simulation of
``webhook/karmada/``: a new built-in rule, CEL function or Karmada overrider starts there
(``webhook/__init__.py``).
"""

"""``fedgate check`` and the pre-commit hook: the synced tree judged as Argo CD will write it.

- ``tree.py``: what check reviews (reads the working tree and git HEAD, calls the pure parts);
- ``synced.py``: the synced tree, fedgate's files and the hand-written ones beside them;
- ``writes.py``: the writes Argo CD will make from it, reviewed as the webhook will (pure);
- ``gitrepo.py``: the committed version of the rendered tree, from git's plumbing;
- ``weakenings.py``: rules a change of ``policies/`` removes or weakens against a base;
- ``strayexceptions.py``: exception files outside the bundle's exceptions folder, refused.

What Argo CD reads and permits (directory sources, globs, acting files) is ``compiler/argocd/``.
"""

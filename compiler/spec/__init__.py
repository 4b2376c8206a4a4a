"""The app spec: its model (frozen values) and its loader (YAML in, located errors out).

A new app spec field: its frozen value in ``model.py``, its reading and the checks that need
only the file in ``load.py`` (checks against the bundle or across apps:
``compiler/compile/validate.py``),
the render step that writes it (``compiler/render/``, in the order of
``compiler/render/pipeline.py``), and its entry in docs/app-spec.md.
"""

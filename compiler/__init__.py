"""fedgate's compiler: app specs in, Karmada manifests out; and the ``fedgate`` command line."""

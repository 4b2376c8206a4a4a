"""fedgate's rule engine (pure), its policy bundle, and the admission webhook shell."""

"""The app spec: its model (frozen values) and its loader (YAML in, located errors out)."""

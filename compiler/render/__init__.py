"""Rendering: an ordered series of small steps from one AppSpec to its Karmada objects."""

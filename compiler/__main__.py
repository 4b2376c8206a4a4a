"""``python -m compiler`` is ``fedgate``."""

from compiler.cli import entry

entry()

"""``python -m compiler`` is ``fedgate``."""

from compiler.cli import main

raise SystemExit(main())

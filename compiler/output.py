"""Where a command writes: results to stdout (text or JSON), errors and progress to stderr."""

from __future__ import annotations

import json
from typing import Any, TextIO


class Output:
    """Where a command writes: stdout for results, stderr for errors and progress."""

    def __init__(self, stdout: TextIO, stderr: TextIO, fmt: str) -> None:
        self.stdout, self.stderr, self.format = stdout, stderr, fmt

    def json(self, value: Any) -> None:
        # one write: json.dump writes piece by piece (half a million writes for a big plan)
        self.stdout.write(json.dumps(value, indent=2, sort_keys=False) + "\n")

    def line(self, text: str = "") -> None:
        self.stdout.write(text + "\n")

    def error(self, text: str) -> None:
        self.stderr.write(text + "\n")

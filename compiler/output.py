"""Where a command writes: results to stdout (text or JSON), errors and progress to stderr.

Also the terminal conventions every command shares: colour only for a terminal that wants it
(``NO_COLOR``, ``TERM=dumb`` and pipes get plain text), progress only on an interactive
stderr, and counted nouns ("1 app", "2 apps").
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TextIO

from compiler.progress import Progress, bar, counter


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 app``, ``2 apps``; ``many`` for nouns that do not just take an s."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except ValueError:  # a closed stream
        return False


def interactive(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """A terminal that understands cursor movement: not a pipe, a file, or ``TERM=dumb``."""
    return _is_terminal(stream) and _environ(environ).get("TERM") != "dumb"


def color_wanted(
    stream: TextIO, choice: str = "auto", environ: Mapping[str, str] | None = None
) -> bool:
    """Whether to write ANSI colours to ``stream``: ``--color always|never`` decide; ``auto``
    colours an interactive terminal unless ``NO_COLOR`` is set to anything (no-color.org)."""
    if choice in ("always", "never"):
        return choice == "always"
    return not _environ(environ).get("NO_COLOR") and interactive(stream, environ)


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

    def failure(self, errors: list[dict[str, Any]], text: list[str]) -> None:
        """A command that failed: ``text`` on stderr, and with ``--output json`` the errors as
        ``{"ok": false, "errors": [...]}`` on stdout, so a tool reading stdout always gets JSON."""
        if self.format == "json":
            self.json({"ok": False, "errors": errors})
        for line in text:
            self.error(line)

    @contextmanager
    def progress(self, label: str) -> Iterator[Progress | None]:
        """Progress on stderr while the block runs, only when stderr is a terminal (never in a
        pipe, a file or CI logs; yields None then). A rich bar where colour is welcome; with
        NO_COLOR or TERM=dumb, a plain counter redrawn with a carriage return, no escapes."""
        if not _is_terminal(self.stderr):
            yield None
            return
        if not color_wanted(self.stderr):
            with counter(self.stderr, label) as advance:
                yield advance
            return
        with bar(self.stderr, label) as advance:
            yield advance

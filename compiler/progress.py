"""How a command shows long work on stderr: the ``Progress`` callback, a plain counter (for
NO_COLOR and TERM=dumb) and a bar drawn by rich.

compiler/output.py decides which, and only for an interactive terminal; rich is imported when
a bar is drawn, so pipes, CI logs and the pre-commit hook never load it or see a cursor
movement.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while a long piece of work advances."""


@contextmanager
def bar(stream: TextIO, label: str) -> Iterator[Progress]:
    """A transient bar (gone when the work is done, so the result stands alone)."""
    from rich.console import Console  # noqa: PLC0415 - rich loads only to draw a bar
    from rich.progress import (  # noqa: PLC0415
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.progress import Progress as Bar  # noqa: PLC0415

    console = Console(file=stream)
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Bar(*columns, console=console, transient=True) as progress:
        task = progress.add_task(label, total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        yield advance


@contextmanager
def counter(stream: TextIO, label: str) -> Iterator[Progress]:
    """``label 120/2000``, redrawn at most ten times a second, erased at the end."""
    last = [0.0, 0]  # when it was drawn, how wide

    def advance(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 0.1 or done == total:
            text = f"{label} {done}/{total}"
            stream.write("\r" + text.ljust(int(last[1])))
            stream.flush()
            last[:] = [now, len(text)]

    try:
        yield advance
    finally:
        if last[1]:
            stream.write("\r" + " " * int(last[1]) + "\r")
            stream.flush()

"""A progress bar on stderr, drawn by rich (which also honours NO_COLOR), for long work only.

Imported only when stderr is an interactive terminal (compiler/output.py decides), so pipes,
CI logs and the pre-commit hook never load rich or see a cursor movement.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from compiler.output import Progress as Advance


@contextmanager
def bar(stream: TextIO, label: str) -> Iterator[Advance]:
    """A transient bar (gone when the work is done, so the result stands alone)."""
    console = Console(file=stream)
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(label, total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        yield advance

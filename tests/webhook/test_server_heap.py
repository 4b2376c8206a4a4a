"""A worker freezes what it loaded, so full collections no longer walk the compiled bundle."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs a Python process to measure its heap

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import gc
from pathlib import Path
from webhook.shell.server import ServeOptions, WebhookServer
from webhook.shell.settings import Settings
server = WebhookServer(ServeOptions(), Settings(policies=Path("policies")))
before = gc.get_freeze_count()
server.load()
frozen = gc.get_freeze_count()
gc.collect()
print(before, frozen, len(gc.get_objects()))
"""


def test_the_loaded_worker_heap_is_frozen() -> None:
    """In a child process (freezing the test runner's heap would keep its garbage forever)."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    before, frozen, tracked = result.stdout.split()
    assert int(before) == 0
    assert int(frozen) > 10_000, "the compiled bundle should be in the permanent generation"
    assert int(tracked) < int(frozen) // 10, "a full collection still walks most of the heap"

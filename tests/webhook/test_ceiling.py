"""The memory ceiling's choice: which serving worker the master replaces, and when none."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from webhook.shell.ceiling import LOOK_SECONDS, MIB, MemoryCeiling, own_memory_bytes

SETTLE = 600.0


def ceiling(held: dict[int, int], mib: int = 100) -> MemoryCeiling:
    """A ceiling of ``mib`` reading ``held`` (pid -> MiB, changed by the test)."""
    return MemoryCeiling(mib, SETTLE, measure=lambda pid: held[pid] * MIB if pid in held else None)


def test_a_worker_that_grew_past_the_ceiling_after_settling_is_replaced_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    held = {11: 40, 12: 45}
    watch = ceiling(held)
    assert watch.grown([11, 12], now=0.0) is None  # first seen: 40 and 45 MiB
    held[12] = 101
    with caplog.at_level(logging.WARNING, logger="fedgate.webhook"):
        assert watch.grown([11, 12], now=SETTLE + 1) == 12
    assert "worker 12 holds 101 MiB of its own (45 MiB when first seen serving)" in caplog.text
    assert "past its ceiling of 100 MiB: a new worker replaces it" in caplog.text


def test_at_the_ceiling_exactly_nothing_is_replaced() -> None:
    held = {11: 40}
    watch = ceiling(held)
    watch.grown([11], now=0.0)
    held[11] = 100
    assert watch.grown([11], now=SETTLE + 1) is None


def test_a_worker_past_the_ceiling_while_settling_is_kept_and_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A bundle and live index that need more than the ceiling: replacing the worker would
    start one that needs as much, and replace it in turn."""
    held = {11: 150}
    watch = ceiling(held)
    with caplog.at_level(logging.ERROR, logger="fedgate.webhook"):
        assert watch.grown([11], now=0.0) is None
        assert watch.grown([11], now=LOOK_SECONDS) is None
    assert caplog.text.count("raise --worker-memory-mib") == 1
    assert "worker 11 holds 150 MiB of its own within 0 s of serving" in caplog.text


def test_a_worker_that_grew_while_settling_is_replaced_only_once_it_has_settled() -> None:
    held = {11: 40}
    watch = ceiling(held)
    watch.grown([11], now=0.0)
    held[11] = 120  # its live index came in, say
    assert watch.grown([11], now=SETTLE / 2) is None
    assert watch.grown([11], now=SETTLE) == 11


def test_the_master_looks_at_most_every_look_seconds() -> None:
    looks: list[int] = []

    def measure(pid: int) -> int:
        looks.append(pid)
        return MIB

    watch = MemoryCeiling(100, SETTLE, measure=measure)
    watch.grown([11], now=0.0)
    watch.grown([11], now=LOOK_SECONDS / 2)
    watch.grown([11], now=LOOK_SECONDS)
    assert looks == [11, 11]


def test_no_ceiling_reads_nothing() -> None:
    watch = MemoryCeiling(0, SETTLE, measure=lambda pid: pytest.fail("read with no ceiling"))
    assert watch.grown([11], now=10 * SETTLE) is None


def test_a_worker_gone_is_forgotten_and_one_not_measured_is_skipped() -> None:
    held = {11: 40, 12: 40}
    watch = ceiling(held)
    watch.grown([11, 12], now=0.0)
    del held[11]  # its /proc entry gone between the listing and the read
    held[12] = 200
    assert watch.grown([11, 12], now=SETTLE + 1) == 12
    assert watch.grown([12], now=SETTLE + 1 + LOOK_SECONDS) == 12
    assert set(watch.first_seen) == {12}


def test_own_memory_is_the_private_pages_of_a_live_process_and_none_for_a_gone_one() -> None:
    if not os.path.exists(f"/proc/{os.getpid()}/smaps_rollup"):
        pytest.skip("no /proc/PID/smaps_rollup here (Linux 4.14 or later has it)")
    mine = own_memory_bytes(os.getpid())
    assert mine is not None
    statm = Path(f"/proc/{os.getpid()}/statm").read_text()
    rss = int(statm.split()[1]) * os.sysconf("SC_PAGE_SIZE")
    assert 0 < mine <= rss
    grown = bytearray(64 * MIB)  # written: private, resident
    grown[::4096] = b"x" * len(grown[::4096])
    after = own_memory_bytes(os.getpid())
    assert after is not None and after - mine >= 60 * MIB
    del grown
    assert own_memory_bytes(2**22 + 1) is None  # above the kernel's highest pid: none such

"""The memory ceiling's choice: which serving worker the master replaces, and when none."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from webhook.shell.ceiling import LOOK_SECONDS, MIB, MemoryCeiling, own_memory_bytes

PACE = 30.0


def ceiling(held: dict[int, int], mib: int = 100) -> MemoryCeiling:
    """A ceiling of ``mib`` reading ``held`` (pid -> MiB, changed by the test)."""
    return MemoryCeiling(mib, PACE, measure=lambda pid: held[pid] * MIB if pid in held else None)


def test_a_worker_that_grew_past_the_ceiling_is_replaced_at_once_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """No waiting while a worker is young: a leak fast enough to reach the ceiling within
    minutes would reach the pod's limit too."""
    held = {11: 40, 12: 45}
    watch = ceiling(held)
    assert watch.grown([11, 12], now=0.0) is None  # first seen: 40 and 45 MiB
    held[12] = 101
    with caplog.at_level(logging.WARNING, logger="fedgate.webhook"):
        assert watch.grown([11, 12], now=LOOK_SECONDS) == 12
    assert "worker 12 holds 101 MiB of its own (45 MiB when first seen serving)" in caplog.text
    assert "past its ceiling of 100 MiB: a new worker replaces it" in caplog.text


def test_at_the_ceiling_exactly_nothing_is_replaced() -> None:
    held = {11: 40}
    watch = ceiling(held)
    watch.grown([11], now=0.0)
    held[11] = 100
    assert watch.grown([11], now=LOOK_SECONDS) is None


def test_where_workers_begin_near_the_ceiling_none_is_replaced_and_each_is_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A bundle and live index that need about the ceiling: a new worker would need as much,
    and be replaced in turn, forever (the red team's loop: one every settle period)."""
    held = {11: 85}
    watch = ceiling(held)
    with caplog.at_level(logging.ERROR, logger="fedgate.webhook"):
        assert watch.grown([11], now=0.0) is None
        held[11] = 150
        for look in range(1, 400):
            assert watch.grown([11], now=look * LOOK_SECONDS) is None
    assert caplog.text.count("raise --worker-memory-mib") == 1
    assert "workers begin at 85 MiB of their own or more, 85% of the ceiling" in caplog.text


def test_a_replacement_first_seen_already_grown_is_still_held_to_the_ceiling() -> None:
    """No first look is taken while a replacement is under way: a worker under a fast leak is
    first seen past 80% of the ceiling, and judged by what workers begin at, not by that."""
    held = {11: 45}
    watch = ceiling(held)
    watch.grown([11], now=0.0)
    held[11] = 130
    assert watch.grown([11], now=LOOK_SECONDS) == 11
    held.pop(11)
    held[12] = 110  # the replacement, first seen late
    assert watch.grown([12], now=2 * LOOK_SECONDS) is None
    held[12] = 140
    assert watch.grown([12], now=LOOK_SECONDS + PACE) == 12


def test_replacements_are_paced(caplog: pytest.LogCaptureFixture) -> None:
    """Workers that pass the ceiling soon after they start (a ceiling just above what they
    are born with, or a fast leak) are replaced at most once per pace."""
    held = {11: 40, 12: 40}
    watch = ceiling(held)
    watch.grown([11, 12], now=0.0)
    held[11] = held[12] = 120
    assert watch.grown([11, 12], now=LOOK_SECONDS) == 11
    del held[11]
    held[13] = 40
    assert watch.grown([12, 13], now=2 * LOOK_SECONDS) is None  # 12 waits for the pace
    assert watch.grown([12, 13], now=LOOK_SECONDS + PACE) == 12


def test_a_pause_holds_replacements_back() -> None:
    held = {11: 40}
    watch = ceiling(held)
    watch.grown([11], now=0.0)
    watch.pause(now=0.0, seconds=600)
    held[11] = 200
    assert watch.grown([11], now=599.0) is None
    assert watch.grown([11], now=601.0) == 11


def test_the_master_looks_at_most_every_look_seconds() -> None:
    looks: list[int] = []

    def measure(pid: int) -> int:
        looks.append(pid)
        return MIB

    watch = MemoryCeiling(100, PACE, measure=measure)
    watch.grown([11], now=0.0)
    watch.grown([11], now=LOOK_SECONDS / 2)
    watch.grown([11], now=LOOK_SECONDS)
    assert looks == [11, 11]


def test_no_ceiling_reads_nothing() -> None:
    watch = MemoryCeiling(0, PACE, measure=lambda pid: pytest.fail("read with no ceiling"))
    assert watch.grown([11], now=1000.0) is None


def test_a_worker_whose_memory_cannot_be_read_is_named_once_and_the_others_still_judged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    held = {12: 40}
    watch = ceiling(held)
    with caplog.at_level(logging.ERROR, logger="fedgate.webhook"):
        watch.grown([11, 12], now=0.0)
        held[12] = 200
        assert watch.grown([11, 12], now=LOOK_SECONDS) == 12
    assert caplog.text.count("cannot read worker 11's memory") == 1


def test_a_worker_gone_is_forgotten() -> None:
    held = {11: 40, 12: 40}
    watch = ceiling(held)
    watch.grown([11, 12], now=0.0)
    watch.grown([12], now=LOOK_SECONDS)
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

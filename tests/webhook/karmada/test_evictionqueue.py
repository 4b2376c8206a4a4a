"""The taint manager's eviction queues and their pacing (karmada v1.18.2
pkg/controllers/cluster/dynamic_rate_limiter_test.go and eviction_worker_test.go)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webhook.karmada.evictionqueue import (
    MAX_EVICTION_DELAY,
    QueueSettings,
    dynamic_delay,
    taken,
    throughput,
    windows,
)

RATE_LIMITER_TEST = "pkg/controllers/cluster/dynamic_rate_limiter_test.go"
WORKER_TEST = "pkg/controllers/cluster/eviction_worker_test.go"


# TestDynamicRateLimiter_When_Scenarios (Go allows 1 ms either way).
@pytest.mark.parametrize(
    ("rate", "expected"),
    [
        pytest.param(50, 0.020, id="rate 50 => 20ms"),
        pytest.param(20, 0.050, id="rate 20 => 50ms"),
        pytest.param(30, 0.033, id="rate 30 => 33ms"),
        pytest.param(10, 0.100, id="rate 10 => 100ms"),
        pytest.param(0, MAX_EVICTION_DELAY, id="rate 0 => halt"),
    ],
)
def test_dynamic_rate_limiter_when(rate: float, expected: float) -> None:
    assert abs(dynamic_delay(rate) - expected) <= 0.001, RATE_LIMITER_TEST


# TestEvictionWorker_ThroughputWithDynamicRateLimiter: one worker, an item enqueued every
# millisecond, counted after 200 ms: rate 50 processes 6 to 12, rate 0 at most 1.
@pytest.mark.parametrize(
    ("rate", "low", "high"),
    [
        pytest.param(50, 6, 12, id="rate=50 per second"),
        pytest.param(0, 0, 1, id="rate=0 should nearly halt"),
    ],
)
def test_eviction_worker_throughput(rate: float, low: int, high: int) -> None:
    ready = [i / 1000 for i in range(250)]
    times = taken(ready, QueueSettings(rate, workers=1))
    processed = sum(1 for t in times if t < 0.2)
    assert low <= processed <= high, WORKER_TEST


def test_each_worker_paces_itself_so_the_queue_runs_at_three_times_the_rate() -> None:
    """``Run(ctx, 3)`` (controllermanager.go ConcurrentReconciles) and a pause per worker
    (eviction_worker.go processNextWorkItem): 9 items at 0.5/s are taken at 0, 0, 0, 2, 2, 2,
    4, 4, 4."""
    assert taken([0.0] * 9, QueueSettings(0.5)) == [0, 0, 0, 2, 2, 2, 4, 4, 4]
    assert throughput(QueueSettings(0.5)) == 1.5


def test_the_default_bucket_caps_a_fast_rate_after_its_burst() -> None:
    """``--rate-limiter-qps`` 10 and bucket 100 (ratelimiterflag.go): at 1,000/s per worker
    the 5 ms base delay paces each worker (600/s for three) through the bucket's 100 tokens,
    then the bucket lets 10 a second through: the 200 left take about 20 s."""
    times = taken([0.0] * 300, QueueSettings(1000))
    assert times[99] == pytest.approx(0.165)
    assert times[-1] == pytest.approx(19.7)
    assert throughput(QueueSettings(1000)) == 10


def test_a_delayed_item_waits_for_its_time_and_for_a_free_worker() -> None:
    settings = QueueSettings(0.5, workers=1)
    assert taken([0.0, 0.0, 1.0, 60.0], settings) == [0, 2, 4, 60]


def test_items_must_come_in_the_order_they_are_added() -> None:
    with pytest.raises(ValueError, match="order"):
        taken([1.0, 0.0], QueueSettings())


def test_windows_span_the_items_added_together() -> None:
    """Items added together are taken in the informer cache's order: each gets the span."""
    spans = windows([0.0, 30.0, 0.0, 0.0, 0.0], QueueSettings(0.5, workers=1))
    assert [(w.earliest, w.latest) for w in spans] == [(0, 6), (30, 30), (0, 6), (0, 6), (0, 6)]


@given(st.lists(st.floats(min_value=0, max_value=600), max_size=40), st.integers(1, 4))
def test_windows_agree_with_the_queue_taken_in_any_order(ready: list[float], workers: int) -> None:
    """Differential: the windows hold every time the one-by-one queue gives, whatever order the
    items added together come in."""
    settings = QueueSettings(0.5, workers=workers)
    spans = windows(ready, settings)
    order = sorted(range(len(ready)), key=lambda i: (ready[i], -i))
    times = taken([ready[i] for i in order], settings)
    for index, time in zip(order, times, strict=True):
        assert spans[index].earliest <= time <= spans[index].latest
        assert time >= ready[index]

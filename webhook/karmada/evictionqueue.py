"""When Karmada v1.18's taint manager gets to each eviction: its queue and its pacing.

Ported from karmada v1.18.2 ``pkg/controllers/cluster``:

- ``taint_manager.go``: two queues, one for ResourceBindings and one for
  ClusterResourceBindings, each keyed by (cluster, binding) and run by
  ``ConcurrentReconciles`` = 3 workers (``cmd/controller-manager/app/controllermanager.go``).
  A binding that must go now is added at once; one whose toleration runs out later is added
  then (``AddAfter``). The queue hands items out first in, first out; the bindings of one
  cluster are added in the order the informer cache lists them, which nothing fixes.
- ``eviction_worker.go``: after each item a worker waits ``pacer.When``: the larger of
  ``dynamic_rate_limiter.go`` (``1 / --resource-eviction-rate`` seconds; 1,800 s at rate 0)
  and the default controller rate limiter (``pkg/sharedcli/ratelimiterflag``: 5 ms, and a
  token bucket of ``--rate-limiter-qps`` refills a second holding ``--rate-limiter-bucket-
  size``, shared by the queue's workers). The rate is therefore per worker: the queue evicts
  up to 3 x the rate a second. v1.18's "dynamic" limiter returns the configured rate; there
  are no secondary rates for many unhealthy clusters in this release.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

WORKERS = 3
"""``ConcurrentReconciles`` of the taint manager (not a flag in v1.18)."""
MAX_EVICTION_DELAY = 1800.0
"""``maxEvictionDelay``: the pause after each item when the rate is 0."""
BASE_DELAY = 0.005
"""``--rate-limiter-base-delay``: the exponential limiter's delay for the (forgotten) pacer key."""


@dataclass(frozen=True)
class QueueSettings:
    """One eviction queue's pacing."""

    rate: float = 0.5
    """``--resource-eviction-rate``."""
    workers: int = WORKERS
    qps: float = 10
    """``--rate-limiter-qps``."""
    burst: int = 100
    """``--rate-limiter-bucket-size``."""


def dynamic_delay(rate: float) -> float:
    """``DynamicRateLimiter.When``: seconds between two items of one worker."""
    return MAX_EVICTION_DELAY if rate == 0 else 1 / rate


class _Bucket:
    """``rate.Limiter.Reserve().Delay()`` of golang.org/x/time: a full bucket at the start."""

    def __init__(self, qps: float, burst: int) -> None:
        self.qps, self.burst = qps, burst
        self.tokens, self.last = float(burst), 0.0

    def reserve(self, now: float) -> float:
        self.tokens = min(float(self.burst), self.tokens + (now - self.last) * self.qps)
        self.last = now
        self.tokens -= 1
        return 0.0 if self.tokens >= 0 else -self.tokens / self.qps


def taken(ready: Sequence[float], settings: QueueSettings) -> list[float]:
    """When the queue's workers take each item (seconds), items given in the order the queue
    receives them: by the time they are added (``ready``, non-decreasing), first come first
    taken. Each taking is followed by that worker's pause."""
    if any(b < a for a, b in pairwise(ready)):
        raise ValueError("items must be given in the order they are added")
    free = [0.0] * max(1, settings.workers)
    heapq.heapify(free)
    bucket = _Bucket(settings.qps, settings.burst)
    pace = dynamic_delay(settings.rate)
    times = []
    for when in ready:
        start = max(when, heapq.heappop(free))
        times.append(start)
        pause = max(pace, BASE_DELAY, bucket.reserve(start))
        heapq.heappush(free, start + pause)
    return times


def throughput(settings: QueueSettings) -> float:
    """Items a second the queue sustains once its bucket is empty."""
    return min(
        settings.workers / dynamic_delay(settings.rate), settings.workers / BASE_DELAY, settings.qps
    )


@dataclass(frozen=True)
class Window:
    """When one item is taken: the queue's order among items added together is unknown, so
    the earliest and the latest time it can be."""

    earliest: float
    latest: float


def windows(ready: Sequence[float], settings: QueueSettings) -> list[Window]:
    """For items added at ``ready`` (any order), each one's window: the span of the times the
    queue takes the items added at the same moment."""
    order = sorted(range(len(ready)), key=lambda i: ready[i])
    times = taken([ready[i] for i in order], settings)
    span: dict[float, tuple[float, float]] = {}
    for index, time in zip(order, times, strict=True):
        low, high = span.get(ready[index], (time, time))
        span[ready[index]] = (min(low, time), max(high, time))
    return [Window(*span[ready[i]]) for i in range(len(ready))]

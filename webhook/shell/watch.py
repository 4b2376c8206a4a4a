"""The live index's watcher: list, then watch, each kind of ``bundle/live.WATCHED``. A shell.

Each gunicorn worker runs its own watcher (threads beside its review threads): a worker then
answers from what it has itself seen, with no channel between processes to fail or lag, and
a worker that dies takes its watch with it. The cost is one list and one watch connection per
kind per worker (2 workers: 26 connections the API server serves from its watch cache) and
the objects held once per worker.

Per kind, one thread: list (paged) and keep the list's resourceVersion; watch from it with
bookmarks, taking each event's (and bookmark's) resourceVersion; when the watch ends (the
server's timeout), watch again from the last one; on 410 Gone (the version left the server's
window, as an answer or an ERROR event) list again, counted as a relist; on any other failure,
retry after a pause that grows to ``RETRY_MAX_SECONDS``. A builder thread turns what the kinds
hold into a ``TreeIndex`` (``bundle/live.live_index``) at most every ``BUILD_SECONDS`` (or
``BUILD_SHARE`` times the last build's time) while events arrive, and hands it to
``on_change``, which swaps it into the worker's bundle.

Staleness: a kind is down from its first failed call until a list or a watch connects again.
While any kind is down longer than ``stale_seconds``, or before every kind's first list, the
index is built ``stale`` and the cross-object rules deny, saying why
(``engine/context.py: cross_index``). Time comes from ``clock`` (tests pass their own).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from webhook.bundle.index import TreeIndex
from webhook.bundle.live import WATCHED, Watched, lean, live_index
from webhook.shell.kubeapi import ApiError, Gone, Keep, whole

LOG = logging.getLogger("fedgate.watch")

WATCH_SECONDS = 60
"""How long one watch call asks the API server to last (it then ends, and is made again)."""
BUILD_SECONDS = 0.1
"""Shortest time between two builds of the index while events arrive."""
BUILD_SHARE = 4
"""After a build, wait this many times as long as it took (and at least BUILD_SECONDS): a
rebuild is linear in what is held (about 150 ms at 10,000 templates and their policies,
bench/live_index.py), so a stream of events takes at most a fifth of a core."""
RETRY_MAX_SECONDS = 5.0
"""Longest pause before a failed list or watch is tried again."""


class Source(Protocol):
    """The API server as the watcher uses it (``kubeapi.ApiServer``, or a fake in tests)."""

    def list(self, path: str, keep: Keep = whole) -> tuple[list[dict[str, Any]], str]: ...

    def watch(self, path: str, resource_version: str, seconds: int) -> Iterator[dict[str, Any]]: ...


class IndexMetrics(Protocol):
    def index_observe(self, kind: str, objects: int, lag: float | None) -> None: ...

    def index_relisted(self, kind: str) -> None: ...

    def index_state(self, ready: bool, stale: bool) -> None: ...


@dataclass
class KindState:
    """What the watcher holds of one kind, and how its watch is doing."""

    watched: Watched
    objects: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    resource_version: str = ""
    """Empty: list (again) before watching."""
    listed: bool = False
    down_since: float | None = None
    last_contact: float | None = None
    problem: str = ""


def _name(obj: dict[str, Any]) -> tuple[str, str]:
    metadata = obj.get("metadata") or {}
    return str(metadata.get("namespace") or ""), str(metadata.get("name", ""))


class LiveIndex:
    def __init__(
        self,
        source: Source,
        *,
        git: TreeIndex | None,
        on_change: Callable[[TreeIndex], None],
        stale_seconds: float,
        clock: Callable[[], float] = time.monotonic,
        watched: Iterable[Watched] = WATCHED,
        metrics: IndexMetrics | None = None,
    ) -> None:
        self.source, self.git, self.on_change = source, git, on_change
        self.stale_seconds, self.clock, self.metrics = stale_seconds, clock, metrics
        self.kinds = [KindState(w) for w in watched]
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.dirty = True
        self.stopping = threading.Event()
        self.started = clock()
        self.built_stale: str | None = None
        self.built_ready = False

    # -- one kind ----------------------------------------------------------------------------

    def relist(self, state: KindState) -> None:
        """List the kind and hold exactly what the list returned."""
        watched = state.watched
        items, version = self.source.list(watched.path, lambda o: lean(o, watched))
        held = {_name(o): o for o in items}
        with self.lock:
            state.objects, state.resource_version = held, version
            if state.listed and self.metrics is not None:
                self.metrics.index_relisted(state.watched.kind)
            state.listed = True
            self._contact(state)
            self._touch()

    def apply(self, state: KindState, event: dict[str, Any]) -> None:
        """Take one watch event: an object added, modified or deleted, or a bookmark; an ERROR
        event raises (``Gone`` for 410)."""
        kind, obj = event.get("type"), event.get("object")
        if not isinstance(obj, dict):
            raise ApiError(f"watch {state.watched.path}: an event without an object")
        if kind == "ERROR":
            message = f"watch {state.watched.path}: {obj.get('code')} {obj.get('message')}"
            raise Gone(message) if obj.get("code") == 410 else ApiError(message)
        version = str((obj.get("metadata") or {}).get("resourceVersion", ""))
        with self.lock:
            self._contact(state)
            if version:
                state.resource_version = version
            if kind in ("ADDED", "MODIFIED"):
                state.objects[_name(obj)] = lean(obj, state.watched)
                self._touch()
            elif kind == "DELETED":
                state.objects.pop(_name(obj), None)
                self._touch()

    def sync(self, state: KindState) -> None:
        """One round: list when there is no version to watch from, then one watch to its
        end. Raises ``Gone`` (the version is lost: listed again next round) or ``ApiError``."""
        if not state.resource_version:
            self.relist(state)
        events = self.source.watch(state.watched.path, state.resource_version, WATCH_SECONDS)
        with self.lock:
            self._contact(state)
        for event in events:
            self.apply(state, event)
            if self.stopping.is_set():
                return

    def failed(self, state: KindState, problem: Exception) -> None:
        with self.lock:
            if isinstance(problem, Gone):
                state.resource_version = ""
                return  # not down: the next round lists again at once
            if state.down_since is None:
                state.down_since = self.clock()
            state.problem = str(problem)
            self._touch()

    def _contact(self, state: KindState) -> None:
        state.last_contact, state.down_since, state.problem = self.clock(), None, ""

    def _touch(self) -> None:
        self.dirty = True
        self.changed.notify()

    # -- the index ---------------------------------------------------------------------------

    def ready(self) -> bool:
        """The index the reviews read was built with every kind listed (``/readyz``): not
        merely listed, since the build that takes the last list in comes a moment after it."""
        with self.lock:
            return self.built_ready

    def stale(self, now: float) -> str | None:
        """Why the index cannot be trusted at ``now``, None when it can."""
        with self.lock:
            return self._stale(now)

    def _stale(self, now: float) -> str | None:
        waiting = [s.watched.kind for s in self.kinds if not s.listed]
        if waiting:
            return f"the first list of {', '.join(waiting)} is not in yet"
        down = [s for s in self.kinds if s.down_since is not None]
        late = [s for s in down if now - (s.down_since or now) > self.stale_seconds]
        if not late:
            return None
        worst = max(late, key=lambda s: now - (s.down_since or now))
        return (
            f"its watch of {', '.join(s.watched.kind for s in late)} has been down for "
            f"{now - (worst.down_since or now):.0f} s, more than {self.stale_seconds:g} s: "
            f"{worst.problem}"
        )

    def held(self) -> list[dict[str, Any]]:
        """Every object held now, of every kind (for the background audit)."""
        with self.lock:
            return [o for s in self.kinds for o in s.objects.values()]

    def build(self) -> TreeIndex:
        """The index of what is held now, handed to ``on_change``."""
        now = self.clock()
        with self.lock:
            self.dirty = False
            stale = self._stale(now)
            live = [o for s in self.kinds for o in s.objects.values()]
            listed = all(s.listed for s in self.kinds)
        index = live_index(self.git, live, watched=[s.watched for s in self.kinds], stale=stale)
        self.on_change(index)
        with self.lock:
            self.built_stale, self.built_ready = stale, listed
        self.observe(now)
        return index

    def observe(self, now: float) -> None:
        if self.metrics is None:
            return
        with self.lock:
            for s in self.kinds:
                lag = None if s.last_contact is None else now - s.last_contact
                self.metrics.index_observe(s.watched.kind, len(s.objects), lag)
            ready, stale = self.built_ready, self.built_stale is not None
        self.metrics.index_state(ready, stale)

    def due(self, now: float) -> bool:
        """A build is due: something changed, or the index's staleness did."""
        with self.lock:
            return self.dirty or self._stale(now) != self.built_stale

    # -- threads -----------------------------------------------------------------------------

    def start(self) -> None:
        """Build the first (stale) index now, then run one thread per kind and the builder."""
        self.build()
        for state in self.kinds:
            name = f"watch-{state.watched.resource}"
            threading.Thread(target=self._run_kind, args=(state,), name=name, daemon=True).start()
        threading.Thread(target=self._run_builder, name="watch-builder", daemon=True).start()

    def stop(self) -> None:
        self.stopping.set()
        with self.lock:
            self.changed.notify_all()

    def _run_kind(self, state: KindState) -> None:
        pause = 0.2
        while not self.stopping.is_set():
            try:
                self.sync(state)
                pause = 0.2
            except ApiError as exc:
                self.failed(state, exc)
                if isinstance(exc, Gone):
                    LOG.info("%s; listing %s again", exc, state.watched.kind)
                    self.stopping.wait(0.05)  # never a tight loop, should lists answer 410 too
                    continue
                LOG.warning("live index: %s; retrying in %.1f s", exc, pause)
                self.stopping.wait(pause)
                pause = min(pause * 2, RETRY_MAX_SECONDS)
            except Exception:  # a bug must not end the watch of a kind silently
                LOG.exception("live index: watch of %s failed", state.watched.kind)
                self.failed(state, ApiError("unexpected error (logged)"))
                self.stopping.wait(RETRY_MAX_SECONDS)

    def _run_builder(self) -> None:
        while not self.stopping.is_set():
            with self.lock:
                if not self.dirty:
                    self.changed.wait(timeout=1.0)
            if self.stopping.is_set():
                return
            now = self.clock()
            pause = BUILD_SECONDS
            if self.due(now):
                started = time.monotonic()
                try:
                    self.build()
                except Exception:
                    LOG.exception("live index: building the index failed")
                pause = max(BUILD_SECONDS, BUILD_SHARE * (time.monotonic() - started))
            else:
                self.observe(now)
            self.stopping.wait(pause)

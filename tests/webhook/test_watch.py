"""The live index's watcher against a fake API server: list, watch with bookmarks, relist on
410 Gone (as an answer and as an ERROR event), staleness on an injected clock, and the index it
hands to the bundle."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

import pytest

from webhook.bundle.index import TreeIndex
from webhook.bundle.live import Watched
from webhook.shell.kubeapi import ApiError, Gone, Keep, whole
from webhook.shell.watch import LiveIndex

DEPLOYMENTS = Watched("apps", "v1", "deployments", "Deployment")
KEY = ("apps", "Deployment", "team-a", "web")


def deployment(name: str, version: str, **labels: str) -> dict[str, Any]:
    """As a list's items are: no apiVersion or kind, managedFields present."""
    return {
        "metadata": {
            "name": name,
            "namespace": "team-a",
            "resourceVersion": version,
            "labels": labels,
            "managedFields": [{"manager": "kubectl"}],
        },
        "spec": {"replicas": 1},
    }


def event(kind: str, obj: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "object": {"apiVersion": "apps/v1", "kind": "Deployment", **obj}}


def bookmark(version: str) -> dict[str, Any]:
    return {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": version}}}


Answer = Any  # a list's (items, version), a watch's events, or an exception to raise


class FakeApi:
    """Answers each path's lists and watches in the order given; records the watches made."""

    def __init__(self) -> None:
        self.lists: dict[str, deque[Answer]] = {}
        self.watches: dict[str, deque[Answer]] = {}
        self.watched_from: list[tuple[str, str]] = []

    def list(self, path: str, keep: Keep = whole) -> tuple[list[dict[str, Any]], str]:
        answer = self.lists[path].popleft()
        if isinstance(answer, Exception):
            raise answer
        items, version = answer
        return [keep(o) for o in items], version

    def watch(self, path: str, resource_version: str, seconds: int) -> Iterator[dict[str, Any]]:
        self.watched_from.append((path, resource_version))
        answer = self.watches[path].popleft()
        if isinstance(answer, Exception):
            raise answer
        return iter(answer)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Recorder:
    def __init__(self) -> None:
        self.observed: dict[str, tuple[int, float | None]] = {}
        self.relists: list[str] = []
        self.states: list[tuple[bool, bool]] = []

    def index_observe(self, kind: str, objects: int, lag: float | None) -> None:
        self.observed[kind] = (objects, lag)

    def index_relisted(self, kind: str) -> None:
        self.relists.append(kind)

    def index_state(self, ready: bool, stale: bool) -> None:
        self.states.append((ready, stale))


def watcher(
    api: FakeApi, *, git: TreeIndex | None = None, clock: Clock | None = None
) -> tuple[LiveIndex, list[TreeIndex], Recorder]:
    built: list[TreeIndex] = []
    metrics = Recorder()
    live = LiveIndex(
        api,
        git=git,
        on_change=built.append,
        stale_seconds=30,
        clock=clock or Clock(),
        watched=[DEPLOYMENTS],
        metrics=metrics,
    )
    return live, built, metrics


def test_list_then_watch_added_modified_deleted() -> None:
    api = FakeApi()
    api.lists[DEPLOYMENTS.path] = deque([([deployment("web", "10")], "10")])
    api.watches[DEPLOYMENTS.path] = deque(
        [
            [
                event("ADDED", deployment("api", "11")),
                event("MODIFIED", deployment("web", "12", tier="front")),
                event("DELETED", deployment("api", "13")),
            ]
        ]
    )
    live, _, _ = watcher(api)
    [state] = live.kinds
    live.sync(state)
    assert api.watched_from == [(DEPLOYMENTS.path, "10")]
    assert state.resource_version == "13"
    index = live.build()
    web = index.get(KEY)
    assert web is not None and web["metadata"]["labels"] == {"tier": "front"}
    assert web["apiVersion"] == "apps/v1" and web["kind"] == "Deployment"
    assert "managedFields" not in web["metadata"]  # held lean
    assert index.get(("apps", "Deployment", "team-a", "api")) is None
    assert index.stale is None


def test_a_bookmark_moves_the_version_and_nothing_else() -> None:
    api = FakeApi()
    api.lists[DEPLOYMENTS.path] = deque([([deployment("web", "10")], "10")])
    api.watches[DEPLOYMENTS.path] = deque([[bookmark("50")], []])
    live, _, _ = watcher(api)
    [state] = live.kinds
    live.sync(state)
    live.build()
    assert not live.due(live.clock())  # a bookmark changes no object: no build is due
    live.sync(state)  # the watch ended (the server's timeout): watch again from the bookmark
    assert api.watched_from[-1] == (DEPLOYMENTS.path, "50")
    assert len(api.lists[DEPLOYMENTS.path]) == 0  # listed once only


@pytest.mark.parametrize(
    "gone",
    [
        pytest.param([event("ERROR", {"code": 410, "message": "too old"})], id="error-event"),
        pytest.param(Gone("GET: 410 Gone"), id="answer"),
    ],
)
def test_410_gone_lists_again_and_holds_what_the_new_list_says(gone: Any) -> None:
    api = FakeApi()
    api.lists[DEPLOYMENTS.path] = deque(
        [
            ([deployment("web", "10"), deployment("old", "9")], "10"),
            ([deployment("web", "90")], "90"),
        ]
    )
    api.watches[DEPLOYMENTS.path] = deque([gone, []])
    live, _, metrics = watcher(api)
    [state] = live.kinds
    with pytest.raises(Gone) as raised:
        live.sync(state)
    live.failed(state, raised.value)
    assert state.resource_version == "" and state.down_since is None  # not down: relisting
    live.sync(state)
    assert api.watched_from[-1] == (DEPLOYMENTS.path, "90")
    assert set(state.objects) == {("team-a", "web")}  # the deleted "old" is gone
    assert metrics.relists == ["Deployment"]


def test_an_error_event_other_than_410_is_a_failure() -> None:
    api = FakeApi()
    api.lists[DEPLOYMENTS.path] = deque([([], "1")])
    api.watches[DEPLOYMENTS.path] = deque([[event("ERROR", {"code": 500, "message": "boom"})]])
    live, _, _ = watcher(api)
    with pytest.raises(ApiError, match="500 boom") as raised:
        live.sync(live.kinds[0])
    assert not isinstance(raised.value, Gone)


def test_not_ready_and_stale_until_the_first_list() -> None:
    api = FakeApi()
    api.lists[DEPLOYMENTS.path] = deque([ApiError("connection refused"), ([], "1")])
    api.watches[DEPLOYMENTS.path] = deque([[]])
    clock = Clock()
    live, built, metrics = watcher(api, clock=clock)
    [state] = live.kinds
    first = live.build()
    assert not live.ready()
    assert first.stale == "the first list of Deployment is not in yet"
    with pytest.raises(ApiError) as raised:
        live.sync(state)
    live.failed(state, raised.value)
    assert not live.ready()
    live.sync(state)
    assert not live.ready()  # listed, but the index the reviews read is not built yet
    assert live.build().stale is None and live.ready()
    assert metrics.states[0] == (False, True) and metrics.states[-1] == (True, False)
    assert len(built) == 2


def test_a_watch_down_longer_than_the_bound_makes_the_index_stale_saying_why() -> None:
    api = FakeApi()
    api.lists[DEPLOYMENTS.path] = deque([([deployment("web", "10")], "10")])
    api.watches[DEPLOYMENTS.path] = deque([ApiError("GET: connection refused"), [bookmark("11")]])
    clock = Clock()
    live, _, metrics = watcher(api, clock=clock)
    [state] = live.kinds
    with pytest.raises(ApiError) as raised:
        live.sync(state)
    live.failed(state, raised.value)
    clock.now += 30
    assert live.stale(clock.now) is None  # at the bound: still trusted
    clock.now += 1
    reason = live.stale(clock.now)
    assert reason == (
        "its watch of Deployment has been down for 31 s, more than 30 s: GET: connection refused"
    )
    assert live.due(clock.now)  # staleness changed: rebuilt with it
    index = live.build()
    assert index.stale == reason and index.get(KEY) is not None  # held, but not trusted
    assert metrics.observed["Deployment"] == (1, 31.0)  # lag: since the list
    live.sync(state)  # the watch is back
    assert live.stale(clock.now) is None and live.build().stale is None


def test_ledgers_come_from_git_and_git_s_other_kinds_stay() -> None:
    git_web = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "team-a",
            "annotations": {"fedgate.dev/ownership": '{"":"git"}'},
        },
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "namespace": "team-a"},
    }
    pruned = {**git_web, "metadata": {**git_web["metadata"], "name": "pruned"}}
    git = TreeIndex.of([git_web, service, pruned], "abc")
    forged = deployment("web", "10")
    forged["metadata"]["annotations"] = {"fedgate.dev/ownership": '{"":"team-a"}'}
    api = FakeApi()
    api.lists[DEPLOYMENTS.path] = deque([([forged, deployment("by-hand", "11")], "11")])
    api.watches[DEPLOYMENTS.path] = deque([[]])
    live, _, _ = watcher(api, git=git)
    live.sync(live.kinds[0])
    index = live.build()
    assert index.get(KEY) is not None and index.get(KEY) is not git_web  # the live object
    assert index.ledgered(KEY) is git_web  # whose ledger decides: Git's
    assert index.ledgered(("apps", "Deployment", "team-a", "by-hand")) is None
    assert index.get(("apps", "Deployment", "team-a", "by-hand")) is not None
    assert index.get(("", "Service", "team-a", "web")) is service  # a kind not watched
    assert index.get(("apps", "Deployment", "team-a", "pruned")) is None  # not live: gone
    assert index.digest == "abc+live"


def test_threads_hand_a_new_object_to_the_bundle_within_a_second() -> None:
    arrived = threading.Event()
    release = threading.Event()

    class Streaming(FakeApi):
        def watch(self, path: str, resource_version: str, seconds: int) -> Iterator[dict[str, Any]]:
            if resource_version == "1":
                return iter([event("ADDED", deployment("web", "2"))])
            release.wait(5)  # the next watch stays open, quiet, until the test ends
            return iter([])

    api = Streaming()
    api.lists[DEPLOYMENTS.path] = deque([([], "1")])
    seen: list[TreeIndex] = []

    def on_change(index: TreeIndex) -> None:
        seen.append(index)
        if index.get(KEY) is not None:
            arrived.set()

    live = LiveIndex(api, git=None, on_change=on_change, stale_seconds=30, watched=[DEPLOYMENTS])
    live.start()
    try:
        assert arrived.wait(2.0), "the ADDED object never reached the bundle"
        deadline = time.monotonic() + 2
        while not live.ready() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert live.ready()
    finally:
        live.stop()
        release.set()
    assert seen[0].stale is not None  # the first index, before any list: stale

"""``fedgate serve``: gunicorn running the webhook, with the bundle held by the master.

The master reads and validates the bundle before any worker starts, and again on SIGHUP or when
the bundle directory or the TLS files change on disk (webhook/shell/reload.py).
Workers build their compiled bundle from the master's last good copy, so a broken edit on disk
never reaches them: the reload is refused, logged and counted, the workers are left alone and
the old bundle keeps serving. Workers run gunicorn's asyncio worker (``asgi``) with the WSGI app
behind ``webhook.shell.asgi.WsgiOnAsgi``: the TLS handshake and every request are read on the event
loop, so slow clients hold memory, not the workers (ten clients sending headers at a byte a
second once stopped every answer), and reviews run on
threads off the loop (``--threads``, plus one lane for large bodies), or with ``--threads 0``
on the loop itself. Keep-alive TLS connections
are kept (a handshake costs more than most reviews), and SO_REUSEPORT spreads long-lived API
server connections over the workers.

Each worker keeps its connections in the order they were last active: at its connection limit
a new connection closes the one idle longest (waiting for a request, with none running), and
on SIGTERM idle connections are closed at once while requests under way finish, so a stop
after traffic takes as long as the slowest answer, not the graceful timeout. Connections just
made (a reload recycles workers under traffic) get their handshake and first request first.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import os
import signal
import ssl
import stat
import sys
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from gunicorn import sock, util
from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter
from gunicorn.asgi.protocol import ASGIProtocol
from gunicorn.glogging import Logger
from gunicorn.workers import gasgi
from prometheus_client.multiprocess import mark_process_dead

from webhook.base.errors import BundleError, UsageError
from webhook.bundle.index import TreeIndex
from webhook.bundle.live import live_index
from webhook.bundle.load import bundle_from_source, read_source
from webhook.bundle.source import BundleSource
from webhook.shell.app import State, create_app, overtime_answer
from webhook.shell.asgi import WsgiOnAsgi
from webhook.shell.audit import append_if_regular_file
from webhook.shell.background import BackgroundAudit, lock_dir
from webhook.shell.ceiling import MemoryCeiling
from webhook.shell.forklane import ForkLane
from webhook.shell.heap import HeapTrimmer, pin_mmap_threshold
from webhook.shell.heavy import HeavyReview
from webhook.shell.kubeapi import ApiServer, Credentials
from webhook.shell.metrics import Metrics
from webhook.shell.reload import (
    Fingerprint,
    TlsPair,
    directory_fingerprint,
    files_fingerprint,
    read_tls_pair,
)
from webhook.shell.settings import Settings
from webhook.shell.watch import LiveIndex

LOG = logging.getLogger("fedgate.server")


@dataclass(frozen=True)
class ServeOptions:
    """How gunicorn runs: address, TLS files, processes, connections and deadlines."""

    bind: str = "127.0.0.1:8443"
    certfile: str | None = None
    keyfile: str | None = None
    workers: int = 2
    threads: int = 4
    """Threads per worker reviewing requests of at most ``Settings.heavy_body_bytes`` once they
    are read (the event loop meanwhile reads the next ones), or 0: on the event loop itself,
    each to its end or its budget (docs/webhook.md, "--threads 0"); larger ones go to a child
    process forked for each (``Settings.heavy_children``), or with none to one more thread."""
    connections: int = 1000
    """Open connections per worker; past it a new connection closes the one idle longest, or
    is closed itself when every other has a request under way. The API server holds a few;
    each slow or idle one costs a few KiB of memory, nothing else."""
    keepalive: int = 75
    """Seconds a connection may stay idle, or take to send a request's headers (the first
    included), before it is closed (the API server reuses idle ones)."""
    timeout: int = 30
    """Seconds a worker may go silent before the master replaces it; also the longest wait for
    the next piece of a request body."""
    graceful_timeout: int = 20
    kube: Credentials | None = None
    """The Karmada API server the live index lists and watches (``--kubeconfig`` or
    ``--in-cluster``); None: the bundle's Git index alone, as before."""
    index_stale_seconds: float = 30.0
    """How long the live index's watch may be down before cross-object rules deny (fail
    closed), seconds."""
    audit_seconds: float = 0.0
    """With the live index: every this many seconds, one worker audits what it holds against
    the current bundle (``webhook/shell/background.py``); 0: no background audit."""
    worker_memory_mib: int = 0
    """A worker whose own memory passes this many MiB is replaced, as a reload replaces one
    (``webhook/shell/ceiling.py``); 0: no ceiling."""


def logging_config() -> dict[str, Any]:
    """Logs on stderr (the audit log writes its own lines to stdout, webhook/shell/audit.py)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "log": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        },
        "handlers": {
            "errors": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "log",
            },
        },
        "root": {"level": "INFO", "handlers": ["errors"]},
        "loggers": {
            "fedgate": {"handlers": ["errors"], "level": "INFO", "propagate": False},
            "gunicorn.error": {"handlers": ["errors"], "level": "INFO", "propagate": False},
            "gunicorn.access": {"handlers": ["errors"], "level": "WARNING", "propagate": False},
        },
    }


class WebhookLogger(Logger):  # type: ignore[misc]
    """gunicorn's logger, with access logging only when an access log is configured.

    gunicorn builds every request's access-log fields (a dict of ~30 atoms, the request
    headers and environ included) whenever *any* logging config is given, then drops the
    line at the logger's level: about 7 % of a worker's CPU under load (py-spy --gil). The
    webhook's audit line is its access log; ``accesslog`` still turns gunicorn's on."""

    def access(self, resp: Any, req: Any, environ: Any, request_time: Any) -> None:
        if self.cfg.accesslog:
            super().access(resp, req, environ, request_time)

    def info(self, msg: str, *args: Any, **kwargs: Any) -> None:
        """With SO_REUSEPORT each worker binds its own socket, so the master's "Listening at:"
        line has no socket to name; name the configured address instead."""
        if msg.startswith("Listening at:") and args and not args[0]:
            scheme = "https" if self.cfg.is_ssl else "http"
            args = (",".join(f"{scheme}://{b}" for b in self.cfg.bind), *args[1:])
        super().info(msg, *args, **kwargs)


def _forget_worker(_arbiter: Any, worker: Any) -> None:
    """Drop a dead worker's live gauges from the shared metrics directory."""
    mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


class DeadlineProtocol(ASGIProtocol):  # type: ignore[misc]
    """gunicorn's ASGI connection, with bounds it lacks: the first request on a connection must
    arrive within ``keepalive`` seconds (gunicorn times out only the later ones: a client that
    connected and sent nothing, or its headers a byte at a time, stayed forever), and a worker
    holds at most ``worker_connections`` connections, closing the one idle longest to make
    room (see ``WebhookWorker``)."""

    worker: WebhookWorker

    opened = 0.0
    """When the connection was made (the event loop's clock)."""

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self.opened = self.worker.loop.time()
        self.worker.connections[self] = None
        if self.worker.nr_conns > self.worker.worker_connections and not self.worker.make_room(
            self
        ):
            self.drop()
        elif getattr(self, "_request_ready", None) is not None:
            self._arm_keepalive_timer()

    def data_received(self, data: bytes) -> None:
        connections = self.worker.connections
        if self in connections:
            connections.move_to_end(self)
        super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.worker.connections.pop(self, None)
        super().connection_lost(exc)
        task = getattr(self, "_task", None)
        if task is None or task.done():
            self._forget_parser()
        else:  # the connection's task still reads with the parser: dropped when it ends
            task.add_done_callback(self._forget_parser)

    def _forget_parser(self, _task: Any = None) -> None:
        """Break gunicorn's cycle: its HTTP/1 parser holds this protocol's bound methods (its
        callbacks) and gunicorn never drops it, so a closed connection, with its TLS transport
        and asyncio's 256 KiB read buffer, waited for a full collection, which the worker's
        large heap (the compiled bundle, collected before it is frozen) makes rare: about
        266 KB kept per new TLS connection (bench/worker_memory.py)."""
        self._callback_parser = None

    @property
    def idle(self) -> bool:
        """Waiting for a request with no request running: nothing is lost by closing it."""
        return bool(
            self._awaiting_request
            and not self._finishing_calls
            and (self._callback_parser is None or self._http1_buffered() == 0)
        )

    @property
    def finished(self) -> bool:
        """Closed by the server with its last answer written out: only the TLS goodbye is
        left, which a client that went away never sends."""
        transport = self.transport
        return bool(
            self._closed and transport is not None and not transport.get_write_buffer_size()
        )

    def drop(self) -> None:
        """Close now, without waiting for the client's TLS goodbye."""
        self.worker.connections.pop(self, None)
        if self.transport is not None:
            self.transport.abort()
        self._closed = True
        if self._request_ready is not None:
            self._request_ready.set()  # wake the connection's loop: it sees _closed and ends


FRESH_SECONDS = 1.0
"""How long a stopping worker waits for the first request of a connection just made."""
HANDSHAKE_SECONDS = 0.5
"""How long a stopping worker waits, once it accepts no more, for handshakes under way."""


class WebhookWorker(gasgi.ASGIWorker):  # type: ignore[misc]
    """gunicorn's asyncio worker serving connections with ``DeadlineProtocol``, which keeps
    them in ``connections``, least recently active first."""

    sockets: list[Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Built in the master, before the fork.
        super().__init__(*args, **kwargs)
        self.connections: OrderedDict[DeadlineProtocol, None] = OrderedDict()
        self.spawn_stamp = self.tmp.last_update()
        """The heartbeat file's time when the worker was made: the worker first beats once it
        serves (its bundle compiled, its socket listening), so another time means ready."""

    @property
    def ready(self) -> bool:
        """In the master: has the worker served yet (its first heartbeat)?"""
        try:
            return bool(self.tmp.last_update() != self.spawn_stamp)
        except (OSError, ValueError):  # its file closed: it is gone
            return False

    def load_wsgi(self) -> None:
        """Compile the bundle, then join the listeners (``WebhookArbiter.spawn_worker``): a
        socket listening before, under SO_REUSEPORT, took its share of new connections and
        left them waiting while the bundle compiled (seconds under load)."""
        super().load_wsgi()
        if not self.sockets:
            self.cfg.set("reuse_port", True)
            self.sockets = sock.create_sockets(self.cfg, self.log)
            for listener in self.sockets:
                util.close_on_exec(listener)

    def init_process(self) -> None:
        # gunicorn builds each connection's protocol by this module-level name; this worker
        # process serves only fedgate, so it names ours.
        gasgi.ASGIProtocol = DeadlineProtocol
        pin_mmap_threshold()
        super().init_process()

    def make_room(self, newcomer: DeadlineProtocol) -> bool:
        """Close the connection idle longest (True), or find none idle (False)."""
        for connection in self.connections:
            if connection is not newcomer and connection.idle:
                connection.drop()
                return True
        return False

    async def _shutdown(self) -> None:
        """gunicorn's graceful stop waited for every open connection, idle keep-alive ones
        included, until the graceful timeout: close those now, and each one under way as
        soon as its answer is out."""
        for server in self.servers:
            server.close()
        if self.servers and not self._quick_shutdown:
            # A TLS 1.3 client counts its handshake done, and sends its request, a round trip
            # before the server does: a connection still in its handshake is not counted yet,
            # and a worker that stopped at once dropped it with the request on its way.
            await asyncio.sleep(HANDSHAKE_SECONDS)
        closer = asyncio.ensure_future(self._close_when_idle())
        try:
            await super()._shutdown()
        finally:
            closer.cancel()

    async def _close_when_idle(self) -> None:
        """A connection made just before the stop (a reload recycles workers under traffic)
        has its request on the way: closing it would fail that request, since a client
        retries only on a connection it reused; it gets FRESH_SECONDS to send it."""
        while True:
            now = self.loop.time()
            for connection in list(self.connections):
                fresh = not connection.req_count and now - connection.opened < FRESH_SECONDS
                if (connection.idle and not fresh) or connection.finished:
                    connection.drop()
            await asyncio.sleep(0.05)


class WebhookArbiter(Arbiter):  # type: ignore[misc]
    """gunicorn's master, validating the bundle and TLS pair before a reload recycles the
    workers, and looking for changed files between signals.

    The look is part of the master's own loop (it waits for signals at most a second at a
    time), not a thread: a change found is handled as a SIGHUP, by the same code, in the same
    single thread as a signal; nothing runs concurrently with gunicorn's worker bookkeeping.
    A recycle starts the new workers before the old ones stop (SO_REUSEPORT: both accept
    meanwhile), and old workers finish their requests under way.

    gunicorn stopped the old workers as soon as the new ones were forked, seconds before these
    served (their bundle compiles first): reviews sent meanwhile waited past the API server's
    timeout, and with failurePolicy Fail the writes were refused. Here an older worker is
    stopped only once every younger one serves (``WebhookWorker.ready``); new workers not
    ready within ``timeout`` seconds are killed instead, and the old ones keep serving."""

    app: WebhookServer

    def __init__(self, app: WebhookServer) -> None:
        super().__init__(app)
        options, settings = app.options, app.settings
        self.ceiling = MemoryCeiling(options.worker_memory_mib, settings.worker_pace_seconds)
        self.replacing: int | None = None
        """The worker started to replace one past its memory ceiling, until it serves."""
        self.stop_queued = False
        """A SIGTERM, SIGINT or SIGQUIT is on its way to the main loop."""

    def spawn_worker(self) -> int:
        """gunicorn's, but the worker opens its SO_REUSEPORT socket itself once its bundle is
        compiled (``WebhookWorker.load_wsgi``), not right after the fork."""
        reuse_port = self.cfg.reuse_port
        self.cfg.set("reuse_port", False)
        try:
            return int(super().spawn_worker())
        finally:
            self.cfg.set("reuse_port", reuse_port)

    def manage_workers(self) -> None:
        if len(self.WORKERS) > self.num_workers:
            self.await_ready_workers()
        super().manage_workers()

    def await_ready_workers(self) -> None:
        """Wait (reaping) until every worker serves, at most ``timeout`` seconds; past it,
        kill those not ready, so gunicorn retires none of the workers that serve."""
        started = time.monotonic()
        deadline, waited = started + self.timeout, False
        while True:
            self.reap_workers()
            waiting = [pid for pid, worker in self.WORKERS.items() if not worker.ready]
            if not waiting:
                if waited:  # once a reload, not on every look while old workers finish
                    LOG.info(
                        "new workers serve after %.1f s; stopping the older ones",
                        time.monotonic() - started,
                    )
                return
            if time.monotonic() >= deadline:
                break
            if self.stop_queued:
                return  # the main loop stops every worker, the waiting ones with the others
            time.sleep(0.05)
            waited = True
        LOG.error(
            "new workers %s did not serve within %s s; killed, the older workers keep serving",
            waiting,
            self.timeout,
        )
        for pid in waiting:
            self.kill_worker(pid, signal.SIGKILL)
        end = time.monotonic() + 5.0
        while any(pid in self.WORKERS for pid in waiting) and time.monotonic() < end:
            self.reap_workers()
            time.sleep(0.05)

    def signal(self, sig: int, frame: Any) -> None:
        """gunicorn's handler (it queues the signal for the main loop), noting a stop: a wait
        for new workers ends on it (``await_ready_workers``)."""
        if sig in STOP_SIGNALS:
            self.stop_queued = True
        super().signal(sig, frame)

    def handle_hup(self) -> None:
        if not self.app.take_changes():
            return  # refused or unchanged: the workers keep serving, untouched
        self.replacing = None  # a reload replaces every worker, a replacement's too
        super().handle_hup()

    def wait_for_signals(self, timeout: float = 1.0) -> list[int]:
        signals: list[int] = super().wait_for_signals(timeout=timeout)
        if signal.SIGHUP not in signals and self.app.changed_on_disk():
            signals.append(signal.SIGHUP)
        if not signals:  # a stop or a reload first: no replacement started under it
            self.replace_grown_worker()
        return signals

    def replace_grown_worker(self) -> None:
        """A worker past its memory ceiling (``MemoryCeiling``) is made the oldest and a new one
        is started: the master's next ``manage_workers`` waits until the new one serves, then
        stops the oldest, as after a reload. Nothing while a reload or a replacement is under
        way (more workers than configured, or one not serving yet). A new worker that never
        served (killed past ``timeout``) pauses replacements for ``FAILED_PAUSE_SECONDS``."""
        workers, now = self.WORKERS, time.monotonic()
        if self.replacing is not None:
            if self.replacing not in workers:
                LOG.error(
                    "the worker started to replace one past its memory ceiling did not serve; "
                    "no replacement for memory for %d s",
                    FAILED_PAUSE_SECONDS,
                )
                self.ceiling.pause(now, FAILED_PAUSE_SECONDS)
                self.replacing = None
            elif workers[self.replacing].ready:
                self.replacing = None
        if len(workers) != self.num_workers or not all(w.ready for w in workers.values()):
            return
        pid = self.ceiling.grown(list(workers), now)
        if pid is None:
            return
        workers[pid].age = min(worker.age for worker in workers.values()) - 1
        self.app.metrics.worker_memory_replacements.inc()
        self.replacing = self.spawn_worker()


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT)
FAILED_PAUSE_SECONDS = 600
"""How long the master makes no replacement for memory after one whose new worker never
served (its bundle would not compile in time, say): each try holds the master for ``timeout``."""


def check_key_file(path: str) -> None:
    """Refuse a TLS private key fedgate cannot read, or one every user of the host can read."""
    try:
        mode = os.stat(path).st_mode
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot read the TLS key file {path}: {exc.strerror}") from None
    if mode & (stat.S_IROTH | stat.S_IWOTH):
        raise UsageError(
            f"the TLS key file {path} is readable or writable by every user (mode "
            f"{stat.S_IMODE(mode):04o}): chmod 600 it (0440 with the webhook's group, as "
            "deploy/ mounts it)"
        )


class WebhookServer(BaseApplication):  # type: ignore[misc]
    """gunicorn's application: config from ServeOptions, the bundle held by the master."""

    def __init__(self, options: ServeOptions, settings: Settings) -> None:
        self.options, self.settings = options, settings
        self.tls: TlsPair | None = None
        if options.keyfile:
            check_key_file(options.keyfile)
        if options.certfile and options.keyfile:
            self.tls = read_tls_pair(options.certfile, options.keyfile)  # refuses to start
        self.metrics = Metrics()
        for descriptor in (1, 2):  # before the workers share them
            append_if_regular_file(descriptor)
        self.seen = self._fingerprint()
        self.next_look = time.monotonic() + settings.reload_seconds
        self.source: BundleSource = self._validated_source()  # refuses to start when broken
        super().__init__()

    def run(self) -> None:
        """BaseApplication.run with fedgate's master."""
        try:
            WebhookArbiter(self).run()
        except RuntimeError as exc:
            print(f"\nError: {exc}\n", file=sys.stderr)
            sys.exit(1)

    def _validated_source(self) -> BundleSource:
        source = read_source(self.settings.policies)
        # raises BundleError, all findings
        bundle_from_source(source, self.settings.cel_backend, proofs=self.settings.cel_proofs)
        return source

    def _fingerprint(self) -> Fingerprint:
        tls = (self.options.certfile, self.options.keyfile) if self.tls else ()
        return directory_fingerprint(self.settings.policies), files_fingerprint(*tls)

    def changed_on_disk(self) -> bool:
        """Every ``reload_seconds``: has the bundle directory or a TLS file changed since the
        last look or reload? Each change is reported once, valid or not."""
        now = time.monotonic()
        if now < self.next_look:
            return False
        self.next_look = now + self.settings.reload_seconds
        seen, self.seen = self.seen, self._fingerprint()
        if seen == self.seen:
            return False
        LOG.info("the policy bundle or TLS files changed on disk; reloading")
        return True

    def take_changes(self) -> bool:
        """On SIGHUP or a change on disk: take the bundle if it is valid and the TLS pair if it
        is new and loads; True when the workers must be recycled to serve what was taken. A
        refusal is logged and counted, and the old one keeps serving."""
        self.seen = self._fingerprint()  # what is read now is seen; later changes are new
        bundle = self.reload_bundle()
        return self.reload_tls() or bundle

    def reload_bundle(self) -> bool:
        """Take the bundle on disk if it is valid (True), else keep serving the old one (False:
        logged and counted)."""
        try:
            self.source = self._validated_source()
        except BundleError as exc:
            self.metrics.bundle_load_errors.inc()
            LOG.error("the new policy bundle is broken; still serving the previous one:\n%s", exc)
            return False
        LOG.info("policy bundle reloaded from %s", self.settings.policies)
        return True

    def reload_tls(self) -> bool:
        """Take a changed certificate and key if they load together (True); unchanged or
        broken: False, the old pair kept (a broken one logged and counted)."""
        certfile, keyfile = self.options.certfile, self.options.keyfile
        if self.tls is None or certfile is None or keyfile is None:
            return False
        try:
            pair = read_tls_pair(certfile, keyfile)
        except UsageError as exc:
            self.metrics.tls_load_errors.inc()
            LOG.error("%s; still serving the previous certificate", exc)
            return False
        if pair == self.tls:
            return False
        self.tls = pair
        LOG.info("TLS certificate reloaded from %s", certfile)
        return True

    def ssl_context(self, _config: Any, _default: Any) -> ssl.SSLContext:
        """In each worker (gunicorn's ``ssl_context`` hook): a context for the master's last
        good pair, never the files on disk now (which the master may have refused)."""
        assert self.tls is not None  # gunicorn asks only when certfile is set
        try:
            return self.tls.context()
        except Exception:
            # gunicorn would log this and serve plain HTTP: end the worker instead (the master
            # starts another); the master loaded the same bytes, so only the OS can fail here.
            LOG.exception("cannot build the TLS context; this worker stops")
            raise SystemExit(1) from None

    def load_config(self) -> None:
        options = self.options
        config: dict[str, Any] = {
            "bind": [options.bind],
            "workers": options.workers,
            "worker_class": WebhookWorker,
            "worker_connections": options.connections,
            "keepalive": options.keepalive,
            "timeout": options.timeout,
            "graceful_timeout": options.graceful_timeout,
            "reuse_port": True,
            "control_socket_disable": True,
            "worker_tmp_dir": "/dev/shm" if os.path.isdir("/dev/shm") else None,
            "accesslog": None,
            "logger_class": WebhookLogger,
            "logconfig_dict": logging_config(),
            "child_exit": _forget_worker,
            "proc_name": "fedgate-webhook",
        }
        if options.certfile and options.keyfile:
            config.update(
                certfile=options.certfile, keyfile=options.keyfile, ssl_context=self.ssl_context
            )
        for key, value in config.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        """In each worker: compile the master's last good bundle once, build the app."""
        started = time.perf_counter()
        bundle = bundle_from_source(
            self.source, self.settings.cel_backend, proofs=self.settings.cel_proofs
        )
        app = create_app(bundle=bundle, settings=self.settings)
        metrics = app.extensions["fedgate"].metrics
        if self.options.kube is not None:
            start_live_index(app.extensions["fedgate"], self.options)
        metrics.bundle_load_seconds.set(time.perf_counter() - started)
        settings = self.settings
        served = WsgiOnAsgi(
            app,
            settings.max_body_bytes,
            on_refused=lambda reason: metrics.bad_requests.labels(reason).inc(),
            executor=ThreadPoolExecutor(self.options.threads, thread_name_prefix="review")
            if self.options.threads
            else None,  # --threads 0: small reviews on the event loop
            heavy_executor=ThreadPoolExecutor(1, thread_name_prefix="review-heavy"),
            heavy_body_bytes=settings.heavy_body_bytes,
            budget_bytes=settings.buffered_body_bytes,
            review_seconds=settings.review_seconds,
            on_overtime=functools.partial(overtime_answer, app.extensions["fedgate"]),
            on_released=HeapTrimmer(settings.heavy_body_bytes).released,
            forked=HeavyReview(app.extensions["fedgate"], ForkLane(settings.heavy_children))
            if settings.heavy_children
            else None,
        )
        settle_heap()
        return served


def start_live_index(state: State, options: ServeOptions) -> LiveIndex:
    """In each worker: list and watch the Karmada API server, swapping each index built into
    the bundle the reviews read (one reference assignment: a review under way keeps the bundle
    it started with). Until the first list is in the index is stale and /readyz says so."""
    assert options.kube is not None
    base = state.bundle

    def swap(index: TreeIndex) -> None:
        state.bundle = replace(base, index=index)

    state.bundle = replace(base, index=live_index(base.index, [], stale="not listed yet"))
    live = LiveIndex(
        ApiServer(options.kube),
        git=base.index,
        on_change=swap,
        stale_seconds=options.index_stale_seconds,
        metrics=state.metrics,
    )
    state.live = live
    live.start()
    if options.audit_seconds > 0:
        BackgroundAudit(
            live, lambda: state.bundle, state.metrics, options.audit_seconds, lock_dir()
        ).start()
    return live


def settle_heap() -> None:
    """Move everything the worker holds so far out of the cyclic garbage collector's sight.

    The compiled bundle (CEL programs, proofs, schemas) lives as long as the worker, yet every
    full collection walked it: under load each worker stopped for 35-80 ms about twice in 8 s
    (gc.callbacks, all threads waiting on the GIL meanwhile). Frozen after a last collection,
    the same full collections take 0.2-0.3 ms. Nothing is leaked: what was garbage is collected
    first, and a reload replaces the worker process."""
    gc.collect()
    gc.freeze()

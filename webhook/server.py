"""``fedgate serve``: gunicorn running the webhook, with the bundle held by the master.

The master reads and validates the bundle before any worker starts, and again on SIGHUP
(gunicorn's reload). Workers build their compiled bundle from the master's last good copy, so a
broken edit on disk never reaches them: the reload is refused, logged and counted, and the old
bundle keeps serving. Workers are gthread (TLS keep-alive connections are not renegotiated per
request, see research/performance-notes.md) with SO_REUSEPORT so long-lived API server
connections spread over the workers.
"""

from __future__ import annotations

import gc
import logging
import os
import time
from dataclasses import dataclass
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.glogging import Logger
from prometheus_client.multiprocess import mark_process_dead

from webhook.app import create_app
from webhook.bundle.load import BundleSource, bundle_from_source, read_source
from webhook.errors import BundleError
from webhook.metrics import Metrics
from webhook.settings import Settings

LOG = logging.getLogger("fedgate.server")


@dataclass(frozen=True)
class ServeOptions:
    """How gunicorn runs: address, TLS files, processes and threads."""

    bind: str = "127.0.0.1:8443"
    certfile: str | None = None
    keyfile: str | None = None
    workers: int = 2
    threads: int = 4
    keepalive: int = 75
    """Seconds an idle keep-alive connection stays open (the API server reuses them)."""
    timeout: int = 30
    graceful_timeout: int = 20


def logging_config() -> dict[str, Any]:
    """Logs on stderr (the audit log writes its own lines to stdout, webhook/audit.py)."""
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


class WebhookServer(BaseApplication):  # type: ignore[misc]
    """gunicorn's application: config from ServeOptions, the bundle held by the master."""

    def __init__(self, options: ServeOptions, settings: Settings) -> None:
        self.options, self.settings = options, settings
        self.metrics = Metrics()
        self.source: BundleSource = self._validated_source()  # refuses to start when broken
        super().__init__()

    def _validated_source(self) -> BundleSource:
        source = read_source(self.settings.policies)
        # raises BundleError, all findings
        bundle_from_source(source, self.settings.cel_backend, proofs=self.settings.cel_proofs)
        return source

    def reload_bundle(self) -> None:
        """On SIGHUP: take the bundle on disk if it is valid, else keep serving the old one."""
        try:
            self.source = self._validated_source()
        except BundleError as exc:
            self.metrics.bundle_load_errors.inc()
            LOG.error("the new policy bundle is broken; still serving the previous one:\n%s", exc)
            return
        LOG.info("policy bundle reloaded from %s", self.settings.policies)

    def load_config(self) -> None:
        options = self.options
        config: dict[str, Any] = {
            "bind": [options.bind],
            "workers": options.workers,
            "worker_class": "gthread",
            "threads": options.threads,
            "keepalive": options.keepalive,
            "timeout": options.timeout,
            "graceful_timeout": options.graceful_timeout,
            "reuse_port": True,
            "control_socket_disable": True,
            "worker_tmp_dir": "/dev/shm" if os.path.isdir("/dev/shm") else None,
            "accesslog": None,
            "logger_class": WebhookLogger,
            "logconfig_dict": logging_config(),
            "on_reload": lambda arbiter: arbiter.app.reload_bundle(),
            "child_exit": _forget_worker,
            "proc_name": "fedgate-webhook",
        }
        if options.certfile and options.keyfile:
            config.update(certfile=options.certfile, keyfile=options.keyfile)
        for key, value in config.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        """In each worker: compile the master's last good bundle once, build the app."""
        started = time.perf_counter()
        bundle = bundle_from_source(
            self.source, self.settings.cel_backend, proofs=self.settings.cel_proofs
        )
        app = create_app(bundle=bundle, settings=self.settings)
        app.extensions["fedgate"].metrics.bundle_load_seconds.set(time.perf_counter() - started)
        settle_heap()
        return app


def settle_heap() -> None:
    """Move everything the worker holds so far out of the cyclic garbage collector's sight.

    The compiled bundle (CEL programs, proofs, schemas) lives as long as the worker, yet every
    full collection walked it: under load each worker stopped for 35-80 ms about twice in 8 s
    (gc.callbacks, all threads waiting on the GIL meanwhile). Frozen after a last collection,
    the same full collections take 0.2-0.3 ms. Nothing is leaked: what was garbage is collected
    first, and a reload replaces the worker process."""
    gc.collect()
    gc.freeze()

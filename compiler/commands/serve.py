"""``fedgate serve``: the production admission webhook (gunicorn + the Flask app)."""

from __future__ import annotations

import argparse
import os
import socket
import tempfile
from dataclasses import replace
from pathlib import Path

from compiler.commands.common import add_backend_argument, backend_name
from compiler.output import Output
from webhook.base.errors import UsageError, describe_os_error
from webhook.shell import kubeapi
from webhook.shell.background import MIN_SECONDS as MIN_AUDIT_SECONDS
from webhook.shell.settings import settings_from_env

NAME = "serve"
HELP = "run the validating admission webhook (gunicorn, HTTPS)"
DESCRIPTION = """\
Serve POST /validate (admission.k8s.io/v1 AdmissionReview), GET /healthz, /readyz and
/metrics with gunicorn's asyncio workers, which read every request whole before a thread
reviews it (a slow client costs memory, never a thread). The bundle is validated before the
first worker starts; SIGHUP reloads it, and a broken bundle keeps the previous one serving
(logged, counted in fedgate_bundle_load_errors_total, and the workers are left alone). The API
server only calls webhooks over HTTPS: give --certfile and --keyfile (plain HTTP is for a
TLS-terminating proxy in front); the key file must not be readable by every user.

An address that is not HOST:PORT, does not resolve, or whose port is in use is refused at once
(exit 2). --output json makes those errors, like every other, JSON on stdout; the audit log
(one JSON line per decision on stdout) is JSON either way.

Settings also come from FEDGATE_POLICIES, FEDGATE_CEL_BACKEND, FEDGATE_CEL_PROOFS (0: every
CEL expression goes to the engine, none is proven in Python first), FEDGATE_MAX_BODY_BYTES,
FEDGATE_MAX_DEPTH, FEDGATE_AUDIT_LOG and FEDGATE_TODAY (as --today); flags win.

With --kubeconfig FILE (or --in-cluster) each worker lists and watches, on the Karmada API
server, what the cross-object rules read (templates, Karmada's policies and autoscalers,
Namespaces): a policy created there is known within a second, without a restart. /readyz
answers 503 until the first list is in; fedgate_index_* metrics show what is held, the watch's
lag and relists; ownership ledgers still come from Git's index only (docs/live-index.md).

examples:
  fedgate serve --bind 0.0.0.0:8443 --certfile tls.crt --keyfile tls.key
  fedgate serve --bind 127.0.0.1:8443 --workers 2 --policies policies/
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bind",
        default="127.0.0.1:8443",
        metavar="HOST:PORT",
        help="address to listen on (default 127.0.0.1:8443)",
    )
    parser.add_argument("--certfile", type=Path, metavar="FILE", help="TLS certificate (PEM)")
    parser.add_argument("--keyfile", type=Path, metavar="FILE", help="TLS private key (PEM)")
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        metavar="N",
        help="worker processes (default 2: one per core; more do not help)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=4,
        metavar="N",
        help="threads per worker reviewing requests (default 4; bodies over "
        "FEDGATE_HEAVY_BODY_BYTES are reviewed in a child process forked for each, "
        "FEDGATE_HEAVY_CHILDREN at a time). 0 reviews the others on the event loop: "
        "a shorter tail on few cores (no thread handoff), but a slow review holds every connection "
        "of its worker until it ends or its time budget stops it",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--kubeconfig",
        type=Path,
        metavar="FILE",
        help="list and watch the Karmada API server of this kubeconfig (its current context): "
        "cross-object rules judge with what it holds, not only the bundle's Git index "
        "(docs/live-index.md)",
    )
    where.add_argument(
        "--in-cluster",
        action="store_true",
        help="as --kubeconfig, with the pod's service account (when fedgate runs in the "
        "cluster whose API server is the Karmada API server)",
    )
    parser.add_argument(
        "--index-stale-seconds",
        type=float,
        default=30.0,
        metavar="S",
        help="with --kubeconfig/--in-cluster: once the watch has been down this long, "
        "cross-object rules deny tenants' writes, saying why (default 30)",
    )
    parser.add_argument(
        "--audit-seconds",
        type=float,
        default=0.0,
        metavar="S",
        help="with --kubeconfig/--in-cluster: every S seconds (at least 10), one worker judges "
        "every live object the index holds against the current bundle, as the metric "
        "fedgate_audit_violations{rule,namespace} (docs/audit.md; default 0: off)",
    )
    parser.add_argument(
        "--worker-memory-mib",
        type=int,
        default=0,
        metavar="MIB",
        help="replace a worker whose own memory (its private pages) passes MIB: a new worker "
        "starts, and once it serves the old one finishes its requests and stops, as on a reload "
        "(default 0: never). cel-expr keeps the arguments and result of every library function "
        "fedgate implements in Python (url(), find(), format()...): a rule calling one on "
        "request data grows its worker with each request (docs/webhook.md)",
    )
    add_backend_argument(parser)


def check_bind(bind: str) -> None:
    """Refuse, at once and in one line, an address gunicorn would retry forever: one that is not
    HOST:PORT, a host that does not resolve or is not this machine's, a port in use."""
    if bind.startswith(("unix:", "fd://")):
        return  # gunicorn's other address forms: nothing to probe
    host, sep, port = bind.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"--bind {bind}: give HOST:PORT, e.g. 127.0.0.1:8443 or [::]:8443")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, int(port), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (OSError, UnicodeError) as exc:
        reason = describe_os_error(exc) if isinstance(exc, OSError) else str(exc)
        raise UsageError(f"--bind {bind}: cannot resolve {host!r}: {reason}") from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)  # no SO_REUSEPORT: a port held by anyone else is in use
        except OSError as exc:
            raise UsageError(f"--bind {bind}: {describe_os_error(exc)}") from None


def run(args: argparse.Namespace, out: Output) -> int:
    if (args.certfile is None) != (args.keyfile is None):
        raise UsageError("give both --certfile and --keyfile, or neither")
    for option, path in (("--certfile", args.certfile), ("--keyfile", args.keyfile)):
        if path is not None and not path.is_file():
            what = "a directory; give the PEM file in it" if path.is_dir() else "no such file"
            raise UsageError(f"{option} {path}: {what}")
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.threads < 0:
        raise UsageError("--threads must be 0 (reviews on the event loop) or more")
    if args.worker_memory_mib < 0:
        raise UsageError("--worker-memory-mib must be 0 (no ceiling) or a number of MiB")
    check_bind(args.bind)
    if not 0 < args.index_stale_seconds < float("inf"):
        raise UsageError("--index-stale-seconds must be a positive number of seconds")
    if args.audit_seconds and not MIN_AUDIT_SECONDS <= args.audit_seconds < float("inf"):
        raise UsageError(f"--audit-seconds must be 0 (off) or at least {MIN_AUDIT_SECONDS:g}")
    if args.audit_seconds and args.kubeconfig is None and not args.in_cluster:
        raise UsageError("--audit-seconds audits the live index: give --kubeconfig or --in-cluster")
    kube = None
    if args.kubeconfig is not None:
        kube = kubeapi.from_kubeconfig(args.kubeconfig)
    elif args.in_cluster:
        kube = kubeapi.in_cluster()
    settings = replace(settings_from_env(), policies=args.policies, cel_backend=backend_name(args))
    if args.today is not None:
        settings = replace(settings, today=args.today)
    # Before prometheus_client is imported: every worker writes its samples here.
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="fedgate-metrics-"))
    from webhook.shell.server import ServeOptions, WebhookServer  # noqa: PLC0415 - after the env

    options = ServeOptions(
        bind=args.bind,
        certfile=str(args.certfile) if args.certfile else None,
        keyfile=str(args.keyfile) if args.keyfile else None,
        workers=args.workers,
        threads=args.threads,
        kube=kube,
        index_stale_seconds=args.index_stale_seconds,
        audit_seconds=args.audit_seconds,
        worker_memory_mib=args.worker_memory_mib,
    )
    if options.certfile is None:
        out.error("fedgate: serving plain HTTP; the API server requires HTTPS from webhooks")
    WebhookServer(options, settings).run()
    return 0

"""``fedgate serve``: the production admission webhook (gunicorn + the Flask app)."""

from __future__ import annotations

import argparse
import os
import tempfile
from dataclasses import replace
from pathlib import Path

from compiler.commands.common import add_backend_argument, backend_name
from compiler.output import Output
from webhook.errors import UsageError
from webhook.settings import settings_from_env

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

Settings also come from FEDGATE_POLICIES, FEDGATE_CEL_BACKEND, FEDGATE_CEL_PROOFS (0: every
CEL expression goes to the engine, none is proven in Python first), FEDGATE_MAX_BODY_BYTES,
FEDGATE_MAX_DEPTH and FEDGATE_AUDIT_LOG; flags win.

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
        help="threads per worker reviewing requests (default 4)",
    )
    add_backend_argument(parser)


def run(args: argparse.Namespace, out: Output) -> int:
    if (args.certfile is None) != (args.keyfile is None):
        raise UsageError("give both --certfile and --keyfile, or neither")
    for path in (args.certfile, args.keyfile):
        if path is not None and not path.is_file():
            raise UsageError(f"{path} does not exist")
    if args.workers < 1 or args.threads < 1:
        raise UsageError("--workers and --threads must be at least 1")
    settings = replace(settings_from_env(), policies=args.policies, cel_backend=backend_name(args))
    # Before prometheus_client is imported: every worker writes its samples here.
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="fedgate-metrics-"))
    from webhook.server import ServeOptions, WebhookServer  # noqa: PLC0415 - after the env

    options = ServeOptions(
        bind=args.bind,
        certfile=str(args.certfile) if args.certfile else None,
        keyfile=str(args.keyfile) if args.keyfile else None,
        workers=args.workers,
        threads=args.threads,
    )
    if options.certfile is None:
        out.error("fedgate: serving plain HTTP; the API server requires HTTPS from webhooks")
    WebhookServer(options, settings).run()
    return 0

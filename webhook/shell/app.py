"""The admission webhook: a thin Flask shell around ``review``.

``create_app(bundle=None, settings=None)`` is the only entry (gunicorn's config points at it).
The view parses, calls the engine, renders the Decision and answers. Whatever goes wrong with
one request, the answer is a 4xx for a request that is not an AdmissionReview, or a denial
carrying its uid: never a 500, never an accidental allow.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from webhook.base.errors import RequestError
from webhook.base.jsontext import has_duplicate_keys
from webhook.base.values import is_mapping
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle
from webhook.engine.admissible import known_kind_names
from webhook.engine.budget import Budget, BudgetExceeded
from webhook.engine.request import AdmissionRequest, parse_review
from webhook.engine.review import review
from webhook.shell.asgi import BODY, DEADLINE, Answer, Deadline, overtime_status
from webhook.shell.audit import AuditSink, audit_record, overtime_record
from webhook.shell.metrics import Metrics
from webhook.shell.response import denial, review_response
from webhook.shell.settings import Settings
from webhook.shell.watch import LiveIndex

LOG = logging.getLogger("fedgate.webhook")
JSON = "application/json"


@dataclass
class State:
    """What every request reads: the bundle, the settings, the metrics and the audit sink."""

    bundle: Bundle
    settings: Settings
    metrics: Metrics
    audit: AuditSink | None
    live: LiveIndex | None = None
    """The live index feeding ``bundle.index`` (``fedgate serve --kubeconfig``), if any."""


def create_app(bundle: Bundle | None = None, settings: Settings | None = None) -> Flask:
    """The WSGI app; loads and compiles the bundle now (once per worker) unless given one."""
    settings = settings or Settings()
    metrics = Metrics()
    if bundle is None:
        started = time.perf_counter()
        bundle = load_bundle(settings.policies, settings.cel_backend, proofs=settings.cel_proofs)
        metrics.bundle_load_seconds.set(time.perf_counter() - started)
    for warning in bundle.warnings:  # a rule that may fail closed on large requests
        LOG.warning("policy bundle: %s", warning.render())
    for fault in bundle.cel_runtime.proof_faults if bundle.cel_runtime is not None else ():
        LOG.error("a rule's proof failed to build (the engine judges it instead): %s", fault)
        metrics.engine_faults.labels("proof").inc()
    metrics.kinds = known_kind_names(bundle)
    app = Flask("fedgate")
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    audit = (
        AuditSink.standard_output(lambda reason: metrics.audit_lost.labels(reason).inc())
        if settings.audit_log
        else None
    )
    state = State(bundle, settings, metrics, audit)
    app.extensions["fedgate"] = state

    @app.post("/validate")
    def validate() -> Response:
        return _validate(state)

    @app.get("/healthz")
    def healthz() -> Response:
        return _json({"status": "ok"})

    @app.get("/readyz")
    def readyz() -> Response:
        live = state.live
        if live is not None and not live.ready():
            waiting = live.stale(live.clock()) or "the first list is not in yet"
            return _json({"status": "waiting for the live index", "index": waiting}, 503)
        return _json(
            {
                "status": "ready",
                "index": state.bundle.index.digest if state.bundle.index else None,
                "rules": len(state.bundle.rules),
                "backend": state.bundle.backend.name if state.bundle.backend else None,
                # reported, never gating: readiness on a log pipe would take admission down
                "audit": state.audit.status() if state.audit is not None else None,
            }
        )

    @app.get("/metrics")
    def metrics_view() -> Response:
        return Response(
            state.metrics.exposition(), mimetype="text/plain; version=0.0.4; charset=utf-8"
        )

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Response:
        reason = "too-large" if isinstance(error, RequestEntityTooLarge) else "http"
        state.metrics.bad_requests.labels(reason).inc()
        return _status(error.code or 400, error.description or error.name)

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Response:  # outside the view: still no 500
        LOG.exception("unexpected error outside the review")
        return _status(400, f"the request could not be handled: {type(error).__name__}")

    return app


def _json(value: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(value), status=status, mimetype=JSON)


def _status(code: int, message: str) -> Response:
    """A metav1.Status body: what the API server reads from a non-200 answer."""
    return _json(
        {
            "apiVersion": "v1",
            "kind": "Status",
            "status": "Failure",
            "code": code,
            "message": message,
        },
        status=code,
    )


def _validate(state: State) -> Response:
    started = time.perf_counter()
    if request.mimetype != JSON:
        state.metrics.bad_requests.labels("content-type").inc()
        return _status(415, f"Content-Type must be {JSON}, not {request.mimetype or 'none'}")
    body = request.get_data(cache=False)
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        state.metrics.bad_requests.labels("not-json").inc()
        return _status(400, f"the body is not JSON: {exc}")
    if has_duplicate_keys(body):  # orjson kept the last: judged on it, a forgery could pass
        state.metrics.bad_requests.labels("duplicate-keys").inc()
        problem = "an object in the body gives the same key twice"
        uid = recover_uid(document)
        if uid is None:
            return _status(400, f"not an AdmissionReview fedgate can read: {problem}")
        return _json(denial(uid, f"fedgate could not review this request: {problem}"))
    try:
        admission = parse_review(document)
        _check_depth(admission, state.settings.max_depth)
    except RequestError as exc:
        state.metrics.bad_requests.labels("malformed").inc()
        uid = recover_uid(document)
        if uid is None:
            return _status(400, f"not an admission.k8s.io/v1 AdmissionReview: {exc}")
        return _json(denial(uid, f"fedgate could not review this request: {exc}"))
    request.environ[ADMISSION] = admission  # for the loop, should the deadline pass
    deadline: Deadline | None = request.environ.get(DEADLINE)
    if deadline is not None and deadline.passed():  # not worth the work
        if not deadline.claim(Deadline.REVIEW):
            return _json(denial(admission.uid, OVERTIME))  # dropped: the loop answered
        state.metrics.bad_requests.labels("overtime").inc()
        _, _, content = overtime_answer(state, request.environ)
        return Response(content, mimetype=JSON)
    # the review stops at the deadline (its thread is free again), not only its answer
    budget = Budget(deadline.passed, OVERTIME) if deadline is not None else None
    try:
        today = state.settings.today or datetime.now(UTC).date()
        decision = review(admission, state.bundle, point="webhook", today=today, budget=budget)
    except BudgetExceeded:
        if not deadline or not deadline.claim(Deadline.REVIEW):
            return _json(denial(admission.uid, OVERTIME))  # dropped: the loop answered
        state.metrics.bad_requests.labels("overtime").inc()
        _, _, content = overtime_answer(state, request.environ)
        return Response(content, mimetype=JSON)
    except Exception:  # an engine bug on one request: deny it, say why, keep serving
        LOG.exception("review failed for request %s", admission.uid)
        state.metrics.bad_requests.labels("engine-error").inc()
        return _json(
            denial(
                admission.uid,
                "fedgate failed to review this request (an internal "
                "error, logged); it is denied until it can be reviewed",
            )
        )
    if deadline is not None and not deadline.claim(Deadline.REVIEW):
        return _json(denial(admission.uid, OVERTIME))  # dropped: the loop answered
    elapsed = time.perf_counter() - started
    for fault in decision.faults:  # the answer stands (the full review's); the shortcut is broken
        LOG.error("review of request %s stepped around a fault: %s", admission.uid, fault)
    state.metrics.observe(admission, decision, elapsed)
    if state.audit is not None:
        state.audit.write(audit_record(admission, decision, elapsed))
    return _json(review_response(admission.uid, decision))


ADMISSION = "fedgate.admission"
"""The environ key where the view leaves the parsed request, should its time budget pass."""
OVERTIME = "review exceeded its time budget"


def overtime_answer(state: State, environ: dict[str, Any]) -> Answer:
    """The answer to a request whose review did not finish within its time budget: a denial
    with its uid (from the view, or read from the body if the view had not parsed it yet),
    never an allow, and its audit line; a 503 Status when the body carries no uid."""
    admission: AdmissionRequest | None = environ.get(ADMISSION)
    uid = admission.uid if admission is not None else None
    if uid is None:
        try:
            uid = recover_uid(orjson.loads(environ.get(BODY, b"")))
        except orjson.JSONDecodeError:
            uid = None
    if uid is None:
        return overtime_status(environ)
    LOG.warning("request %s denied: %s", uid, OVERTIME)
    deadline: Deadline | None = environ.get(DEADLINE)
    if state.audit is not None:
        seconds = time.monotonic() - deadline.arrived if deadline is not None else 0.0
        state.audit.write(overtime_record(uid, admission, seconds))
    return "200 OK", [("Content-Type", JSON)], orjson.dumps(denial(uid, OVERTIME))


def recover_uid(document: Any) -> str | None:
    """``request.uid`` of an ``admission.k8s.io/v1`` AdmissionReview, when there is one."""
    if (
        not is_mapping(document)
        or document.get("apiVersion") != "admission.k8s.io/v1"
        or document.get("kind") != "AdmissionReview"
    ):
        return None
    inner = document.get("request")
    uid = inner.get("uid") if is_mapping(inner) else None
    return uid if isinstance(uid, str) and uid else None


def _check_depth(admission: AdmissionRequest, limit: int) -> None:
    """Refuse objects nested deeper than ``limit`` (orjson itself stops at 1024 levels).

    Level by level over containers only, by exact type (orjson builds dicts and lists). The old
    object of an UPDATE is walked only where it differs from the new one: an equal subtree at
    the same path nests exactly as deep, and was just measured."""
    level: list[Any] = [admission.object]
    depth = 0
    while level:
        below: list[Any] = []
        for value in level:
            children: Iterable[Any]
            if type(value) is dict:
                children = value.values()
            elif type(value) is list:
                children = value
            else:
                continue
            for child in children:
                if type(child) is dict or type(child) is list:
                    below.append(child)
        depth += 1
        if depth > limit:
            raise RequestError(f"request.object nests deeper than {limit} levels")
        level = below
    _check_old_depth(admission.old_object, admission.object, limit)


def _check_old_depth(old: Any, new: Any, limit: int) -> None:
    if old is None or old == new:
        return
    level: list[tuple[Any, Any]] = [(old, new)]
    depth = 0
    while level:
        below: list[tuple[Any, Any]] = []
        for value, twin in level:  # containers that differ from their twin (or have none)
            if type(value) is dict:
                twins = twin if type(twin) is dict else {}
                for key, child in value.items():
                    if type(child) is dict or type(child) is list:
                        other = twins.get(key)
                        if other is None or child != other:
                            below.append((child, other))
            else:
                others = twin if type(twin) is list else ()
                for index, child in enumerate(value):
                    if type(child) is dict or type(child) is list:
                        other = others[index] if index < len(others) else None
                        if other is None or child != other:
                            below.append((child, other))
        depth += 1
        if depth > limit:
            raise RequestError(f"request.oldObject nests deeper than {limit} levels")
        level = below

"""The admission webhook: a thin Flask shell around ``review``.

``create_app(bundle=None, settings=None)`` is the only entry (gunicorn's config points at it).
The view parses, calls the engine, renders the Decision and answers. Whatever goes wrong with
one request, the answer is a 4xx for a request that is not an AdmissionReview, or a denial
carrying its uid: never a 500, never an accidental allow.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
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
from webhook.engine.decision import Decision
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
    return Response(status_body(code, message), status=code, mimetype=JSON)


def status_body(code: int, message: str) -> bytes:
    return orjson.dumps(
        {
            "apiVersion": "v1",
            "kind": "Status",
            "status": "Failure",
            "code": code,
            "message": message,
        }
    )


def _validate(state: State) -> Response:
    environ = request.environ

    def parsed(admission: AdmissionRequest) -> None:
        environ[ADMISSION] = admission  # for the loop, should the deadline pass

    verdict = judge(
        state.bundle,
        state.settings,
        request.mimetype,
        request.get_data(cache=False),
        environ.get(DEADLINE),
        parsed=parsed,
    )
    status, content = finish(state, verdict, environ)
    return Response(content, status=status, mimetype=JSON)


@dataclass(frozen=True)
class Verdict:
    """What the view answers, as data: made by ``judge`` (on a review thread, or in a child
    forked for a large body), then answered, counted and audited by ``finish`` in the worker.
    Either an answer made before any review (``content``, with ``status``), or the review's
    ``decision``, or ``overtime``: the time budget passed first."""

    status: int = 200
    content: bytes = b""
    bad: str | None = None
    """The ``bad_requests`` reason to count, for an answer made before the review."""
    admission: AdmissionRequest | None = None
    decision: Decision | None = None
    seconds: float = 0.0
    overtime: bool = False
    failure: str | None = None
    """An engine error's traceback: logged by ``finish``."""

    def slim(self) -> Verdict:
        """The verdict without the request's objects (what ``finish`` reads of it is the rest):
        what a forked child sends back, so the worker does not read 2 MiB again."""
        if self.admission is None:
            return self
        return replace(self, admission=slim_admission(self.admission))


def slim_admission(admission: AdmissionRequest) -> AdmissionRequest:
    """``admission`` without its object, old object and raw request."""
    return replace(admission, object=None, old_object=None, raw={})


def judge(
    bundle: Bundle,
    settings: Settings,
    mimetype: str,
    body: bytes,
    deadline: Deadline | None,
    *,
    parsed: Callable[[AdmissionRequest], None] = lambda admission: None,
) -> Verdict:
    """The answer to one POST /validate, as data: no metrics, no log, no audit (the child a
    large body is judged in may touch no lock of the worker's). ``parsed`` is told the request
    once it is read, before the review."""
    started = time.perf_counter()
    if mimetype != JSON:
        message = f"Content-Type must be {JSON}, not {mimetype or 'none'}"
        return Verdict(415, status_body(415, message), bad="content-type")
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        return Verdict(400, status_body(400, f"the body is not JSON: {exc}"), bad="not-json")
    if has_duplicate_keys(body):  # orjson kept the last: judged on it, a forgery could pass
        problem = "an object in the body gives the same key twice"
        uid = recover_uid(document)
        if uid is None:
            message = f"not an AdmissionReview fedgate can read: {problem}"
            return Verdict(400, status_body(400, message), bad="duplicate-keys")
        denied = denial(uid, f"fedgate could not review this request: {problem}")
        return Verdict(content=orjson.dumps(denied), bad="duplicate-keys")
    try:
        admission = parse_review(document)
        check_body_depth(body, admission, settings.max_depth)
    except RequestError as exc:
        uid = recover_uid(document)
        if uid is None:
            message = f"not an admission.k8s.io/v1 AdmissionReview: {exc}"
            return Verdict(400, status_body(400, message), bad="malformed")
        denied = denial(uid, f"fedgate could not review this request: {exc}")
        return Verdict(content=orjson.dumps(denied), bad="malformed")
    parsed(admission)
    if deadline is not None and deadline.passed():  # not worth the work
        return Verdict(admission=admission, overtime=True)
    # the review stops at the deadline (its thread is free again), not only its answer
    budget = Budget(deadline.passed, OVERTIME) if deadline is not None else None
    try:
        today = settings.today or datetime.now(UTC).date()
        decision = review(admission, bundle, point="webhook", today=today, budget=budget)
    except BudgetExceeded:
        return Verdict(admission=admission, overtime=True)
    except Exception:  # an engine bug on one request: deny it, say why, keep serving
        denied = denial(
            admission.uid,
            "fedgate failed to review this request (an internal "
            "error, logged); it is denied until it can be reviewed",
        )
        return Verdict(
            content=orjson.dumps(denied),
            bad="engine-error",
            admission=admission,
            failure=traceback.format_exc(),
        )
    return Verdict(admission=admission, decision=decision, seconds=time.perf_counter() - started)


def finish(state: State, verdict: Verdict, environ: dict[str, Any]) -> tuple[int, bytes]:
    """``verdict`` answered (status and body), counted, logged and audited, in the worker. A
    reviewed request is answered only if the review, not the loop, claims its deadline."""
    admission = verdict.admission
    if verdict.decision is None and not verdict.overtime:  # answered before any review
        if verdict.bad is not None:
            state.metrics.bad_requests.labels(verdict.bad).inc()
        if verdict.failure is not None:
            uid = admission.uid if admission is not None else None
            LOG.error("review failed for request %s\n%s", uid, verdict.failure.rstrip())
        return verdict.status, verdict.content
    assert admission is not None
    deadline: Deadline | None = environ.get(DEADLINE)
    if deadline is not None and not deadline.claim(Deadline.REVIEW):
        return 200, orjson.dumps(denial(admission.uid, OVERTIME))  # dropped: the loop answered
    if verdict.overtime or verdict.decision is None:
        state.metrics.bad_requests.labels("overtime").inc()
        _, _, content = overtime_answer(state, environ)
        return 200, content
    decision = verdict.decision
    for fault in decision.faults:  # the answer stands (the full review's); the shortcut is broken
        LOG.error("review of request %s stepped around a fault: %s", admission.uid, fault)
    state.metrics.observe(admission, decision, verdict.seconds)
    if state.audit is not None:
        state.audit.write(audit_record(admission, decision, verdict.seconds))
    return 200, orjson.dumps(review_response(admission.uid, decision))


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


def check_body_depth(body: bytes, admission: AdmissionRequest, limit: int) -> None:
    """``_check_depth`` of ``admission``, parsed from ``body``, skipped where it cannot refuse.

    Every container the parser built is a literal ``{`` or ``[`` byte of the text outside its
    strings (an escape inside a string, ``\\u007b``, is one character of that string, never a
    container), and a UTF-8 byte of a longer character is 0x80 or above, so the body's count
    of those two bytes bounds the number of containers of object and oldObject, and so their
    nesting; the walk counts at least one level even for no container. Where ``max(count, 1)``
    is within ``limit`` no walk can refuse: two C scans of the bytes instead of a Python walk
    of every container (a hypothesis property holds the two to one answer)."""
    objects = body.count(b"{")  # a large body is over with its objects alone: one scan
    if objects > limit or max(objects + body.count(b"["), 1) > limit:
        _check_depth(admission, limit)


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

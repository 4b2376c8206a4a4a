"""A large POST /validate judged in a child forked from the worker (``forklane.py``), then
answered, counted and audited in the worker from the verdict the child sends back.

The child runs ``judge`` (read, parse, review: everything that costs time with a large body) on
the bundle the worker serves at that instant; it sends the request's identity first (without
its objects), so a request past its deadline is still denied and audited with its uid and who
sent it, then the verdict, without the objects too. The worker never parses the large body.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from flask import Response
from werkzeug.http import parse_options_header

from webhook.shell.app import (
    ADMISSION,
    JSON,
    State,
    Verdict,
    finish,
    judge,
    slim_admission,
    status_body,
)
from webhook.shell.asgi import Answer, Deadline
from webhook.shell.forklane import Emit, ForkLane
from webhook.shell.response import denial

LOG = logging.getLogger("fedgate.webhook")
ENDED = "the review ended without an answer (its process died: out of memory?)"


class HeavyReview:
    """``await heavy(environ, body, deadline)``: the answer to a large POST /validate, or None
    when its deadline passed first (queued for a child, or the child killed): the caller gives
    the deadline's answer."""

    def __init__(self, state: State, lane: ForkLane) -> None:
        self.state, self.lane = state, lane

    async def __call__(
        self, environ: dict[str, Any], body: bytes, deadline: Deadline | None
    ) -> Answer | None:
        bundle, settings = self.state.bundle, self.state.settings  # what serves now
        mimetype = parse_options_header(environ.get("CONTENT_TYPE", ""))[0].lower()

        def work(emit: Emit) -> Verdict:
            return judge(
                bundle,
                settings,
                mimetype,
                body,
                deadline,
                parsed=lambda admission: emit(slim_admission(admission)),
            ).slim()

        outcome = await self.lane.run(work, deadline.at if deadline is not None else None)
        if outcome.early is not None:
            environ[ADMISSION] = outcome.early
        if outcome.ended in ("queued", "killed"):
            return None
        verdict = outcome.result if outcome.result is not None else _ended(outcome.early)
        status, content = finish(self.state, verdict, environ)
        response = Response(content, status=status, mimetype=JSON)
        return response.status, response.headers.to_wsgi_list(), content


def _ended(admission: Any) -> Verdict:
    """The verdict on a request whose child died without one: a denial when its uid is known
    (never an allow), else a 503 the API server's failurePolicy decides."""
    if admission is None:
        return Verdict(503, status_body(503, f"{ENDED}; retry"), bad="engine-error")
    content = orjson.dumps(denial(admission.uid, ENDED))
    return Verdict(content=content, bad="engine-error", admission=admission, failure=ENDED)

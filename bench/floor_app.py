"""The floor for bench/webhook.py: a minimal allow-all AdmissionReview handler.

The same work every webhook must do (read the body, parse JSON with orjson, echo the uid) and
nothing else, served as fedgate is: gunicorn's asyncio worker with the same WSGI adapter
(``create_served_app``), so the comparison is like with like.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import orjson
from flask import Flask, Response, request

from webhook.shell.asgi import WsgiOnAsgi
from webhook.shell.settings import Settings


def create_app() -> Flask:
    app = Flask("floor")

    @app.post("/validate")
    def validate() -> Response:
        uid = orjson.loads(request.get_data())["request"]["uid"]
        return Response(
            orjson.dumps(
                {
                    "apiVersion": "admission.k8s.io/v1",
                    "kind": "AdmissionReview",
                    "response": {"uid": uid, "allowed": True},
                }
            ),
            mimetype="application/json",
        )

    @app.get("/readyz")
    def ready() -> Response:
        return Response(b"{}", mimetype="application/json")

    return app


def create_served_app() -> WsgiOnAsgi:
    """The floor behind the adapter fedgate serve uses, with fedgate's body limit and threads
    (fedgate serve's defaults: 4 per worker)."""
    return WsgiOnAsgi(
        create_app(), Settings().max_body_bytes, executor=ThreadPoolExecutor(4, "floor")
    )

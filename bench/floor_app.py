"""The floor for bench/webhook.py: a minimal allow-all AdmissionReview handler.

The same work every webhook must do (read the body, parse JSON with orjson, echo the uid) and
nothing else, served by gunicorn with fedgate's settings.
"""

from __future__ import annotations

import orjson
from flask import Flask, Response, request


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

"""The webhook's settings come from FEDGATE_* variables, with clear errors for bad values."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from webhook.base.errors import UsageError
from webhook.shell.settings import Settings, settings_from_env


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, Settings()),
        ({"FEDGATE_CEL_PROOFS": "0"}, Settings(cel_proofs=False)),
        ({"FEDGATE_CEL_PROOFS": "1"}, Settings(cel_proofs=True)),
        ({"FEDGATE_AUDIT_LOG": "false"}, Settings(audit_log=False)),
        ({"FEDGATE_CEL_BACKEND": "cel-python"}, Settings(cel_backend="cel-python")),
        ({"FEDGATE_MAX_DEPTH": "20"}, Settings(max_depth=20)),
        ({"FEDGATE_REVIEW_SECONDS": "0.5"}, Settings(review_seconds=0.5)),
        ({"FEDGATE_RELOAD_SECONDS": "0.5"}, Settings(reload_seconds=0.5)),
        ({"FEDGATE_WORKER_PACE_SECONDS": "60"}, Settings(worker_pace_seconds=60.0)),
        ({"FEDGATE_HEAVY_BODY_BYTES": "1024"}, Settings(heavy_body_bytes=1024)),
        ({"FEDGATE_BUFFERED_BODY_BYTES": "1024"}, Settings(buffered_body_bytes=1024)),
        ({"FEDGATE_HEAVY_CHILDREN": "0"}, Settings(heavy_children=0)),
        ({"FEDGATE_HEAVY_CHILDREN": "3"}, Settings(heavy_children=3)),
        ({"FEDGATE_POLICIES": "/srv/bundle"}, Settings(policies=Path("/srv/bundle"))),
        ({"FEDGATE_TODAY": "2026-12-31"}, Settings(today=date(2026, 12, 31))),
        ({"FEDGATE_TODAY": ""}, Settings()),
    ],
)
def test_from_env(environ: dict[str, str], expected: Settings) -> None:
    assert settings_from_env(environ) == expected


@pytest.mark.parametrize(
    ("environ", "names"),
    [
        ({"FEDGATE_CEL_BACKEND": "cel-go"}, "FEDGATE_CEL_BACKEND"),
        ({"FEDGATE_MAX_DEPTH": "0"}, "FEDGATE_MAX_DEPTH"),
        ({"FEDGATE_MAX_BODY_BYTES": "lots"}, "FEDGATE_MAX_BODY_BYTES"),
        ({"FEDGATE_REVIEW_SECONDS": "0"}, "FEDGATE_REVIEW_SECONDS"),
        ({"FEDGATE_RELOAD_SECONDS": "0"}, "FEDGATE_RELOAD_SECONDS"),
        ({"FEDGATE_WORKER_PACE_SECONDS": "-5"}, "FEDGATE_WORKER_PACE_SECONDS"),
        ({"FEDGATE_REVIEW_SECONDS": "nan"}, "FEDGATE_REVIEW_SECONDS"),
        ({"FEDGATE_REVIEW_SECONDS": "soon"}, "FEDGATE_REVIEW_SECONDS"),
        ({"FEDGATE_TODAY": "next friday"}, "FEDGATE_TODAY"),
        ({"FEDGATE_HEAVY_CHILDREN": "-1"}, "FEDGATE_HEAVY_CHILDREN"),
        ({"FEDGATE_HEAVY_CHILDREN": "one"}, "FEDGATE_HEAVY_CHILDREN"),
    ],
)
def test_bad_values_name_the_variable(environ: dict[str, str], names: str) -> None:
    with pytest.raises(UsageError, match=names):
        settings_from_env(environ)

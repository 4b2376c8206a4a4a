"""The webhook's settings: one frozen value, read from the environment in one function."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from webhook.base.errors import UsageError
from webhook.engine.cel.engines import BACKENDS, DEFAULT_BACKEND

_BASE = Path(__file__).resolve().parent.parent
DEFAULT_POLICIES = next(
    (p for p in (_BASE / "compiler" / "default_policies", _BASE / "policies") if p.is_dir()),
    _BASE / "policies",
)
"""The bundle shipped with fedgate: inside the wheel, or policies/ beside the sources."""


@dataclass(frozen=True)
class Settings:
    """How the admission webhook behaves. Every field says its unit and what happens past it."""

    policies: Path = field(default=DEFAULT_POLICIES)
    """The policy bundle directory, loaded and compiled once per worker (FEDGATE_POLICIES)."""

    cel_backend: str = DEFAULT_BACKEND
    """``cel-expr`` or ``cel-python`` (FEDGATE_CEL_BACKEND)."""

    cel_proofs: bool = True
    """Prove rules in Python where their CEL is in the subset it translates, before the engine
    (FEDGATE_CEL_PROOFS=0: off, every expression goes to the engine; decisions are the same)."""

    max_body_bytes: int = 7 * 1024 * 1024
    """Largest request body, bytes (FEDGATE_MAX_BODY_BYTES). An AdmissionReview carries object
    and oldObject, each at most the API server's 3 MiB; past it: 413, which failurePolicy Fail
    turns into a denial."""

    max_depth: int = 100
    """Deepest nesting of object and oldObject (FEDGATE_MAX_DEPTH). Kubernetes objects nest about
    15 deep; past it the request is denied (it carries a uid) instead of being reviewed."""

    buffered_body_bytes: int = 64 * 1024 * 1024
    """Request bodies one worker holds at once (being read, queued or under review), bytes
    (FEDGATE_BUFFERED_BODY_BYTES; at least twice max_body_bytes). Bodies over heavy_body_bytes
    may take three quarters of it. A body that does not fit is answered 503 at once, before it
    is read, and the API server applies failurePolicy: stalled bodies cannot take a worker past
    its memory limit, nor keep small reviews out."""

    heavy_body_bytes: int = 256 * 1024
    """Bodies larger than this, bytes, are reviewed in a lane of their own
    (FEDGATE_HEAVY_BODY_BYTES): a burst of them waits behind itself, not in front of the
    small reviews on ``--threads`` threads."""

    heavy_children: int = 1
    """Child processes per worker reviewing large bodies at once (FEDGATE_HEAVY_CHILDREN): each
    is forked at request time, off the worker's GIL, and killed at the request's deadline;
    further large requests wait for one until their deadline. 0: large bodies are reviewed on
    one thread of the worker instead (it holds the GIL against the small reviews, and a review
    past its deadline runs on)."""

    review_seconds: float = 2.0
    """Longest time from a request's headers to its answer, seconds (FEDGATE_REVIEW_SECONDS):
    past it the request is denied, "review exceeded its time budget", before the API server's
    3 s timeout. A review still running then finishes on its thread and its answer is
    dropped; one still queued never starts."""

    reload_seconds: float = 2.0
    """How often ``fedgate serve``'s master looks for a changed bundle directory or TLS files,
    seconds (FEDGATE_RELOAD_SECONDS): a change (a ConfigMap or Secret volume swapping its
    ``..data`` link, or a file rewritten) is validated and served without a restart, as on
    SIGHUP; a broken one is refused and the previous one kept."""

    worker_pace_seconds: float = 30.0
    """With ``serve --worker-memory-mib``: the least time between two replacements of a worker
    for its memory, seconds (FEDGATE_WORKER_PACE_SECONDS; ``webhook/shell/ceiling.py``)."""

    audit_log: bool = True
    """One JSON line per decision on the ``fedgate.audit`` logger (FEDGATE_AUDIT_LOG=0: off)."""
    today: date | None = None
    """The day exceptions are judged on (FEDGATE_TODAY, ``serve --today``, YYYY-MM-DD); None,
    the default: the date (UTC) of each request. Set only to rehearse an expiry, or in tests."""


def settings_from_env(environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``FEDGATE_*`` variables (the only place the webhook reads them)."""
    env = os.environ if environ is None else environ
    defaults = Settings()
    backend = env.get("FEDGATE_CEL_BACKEND") or defaults.cel_backend  # empty: unset
    if backend not in BACKENDS:
        raise UsageError(f"FEDGATE_CEL_BACKEND={backend!r} is not one of {', '.join(BACKENDS)}")
    return Settings(
        policies=Path(env.get("FEDGATE_POLICIES", str(defaults.policies))),
        cel_backend=backend,
        max_body_bytes=_positive(env, "FEDGATE_MAX_BODY_BYTES", defaults.max_body_bytes),
        max_depth=_positive(env, "FEDGATE_MAX_DEPTH", defaults.max_depth),
        buffered_body_bytes=_positive(
            env, "FEDGATE_BUFFERED_BODY_BYTES", defaults.buffered_body_bytes
        ),
        heavy_body_bytes=_positive(env, "FEDGATE_HEAVY_BODY_BYTES", defaults.heavy_body_bytes),
        heavy_children=_whole(env, "FEDGATE_HEAVY_CHILDREN", defaults.heavy_children),
        review_seconds=_seconds(env, "FEDGATE_REVIEW_SECONDS", defaults.review_seconds),
        reload_seconds=_seconds(env, "FEDGATE_RELOAD_SECONDS", defaults.reload_seconds),
        worker_pace_seconds=_seconds(
            env, "FEDGATE_WORKER_PACE_SECONDS", defaults.worker_pace_seconds
        ),
        cel_proofs=_flag(env, "FEDGATE_CEL_PROOFS", defaults.cel_proofs),
        audit_log=_flag(env, "FEDGATE_AUDIT_LOG", defaults.audit_log),
        today=_day(env, "FEDGATE_TODAY"),
    )


def _day(env: Mapping[str, str], name: str) -> date | None:
    raw = env.get(name)
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise UsageError(f"{name}={raw!r} is not a date (YYYY-MM-DD)") from None


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name)
    return default if raw is None else raw not in ("0", "false", "no")


def _positive(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or int(raw) <= 0:
        raise UsageError(f"{name}={raw!r} must be a positive whole number")
    return int(raw)


def _whole(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None:
        return default
    if not raw.isdigit():
        raise UsageError(f"{name}={raw!r} must be a whole number (0 or more)")
    return int(raw)


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise UsageError(f"{name}={raw!r} must be a positive number of seconds")
    return value

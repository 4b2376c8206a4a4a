"""Which policy bundle a command uses: said explicitly, or the repository's own; never a guess.

Order: ``--example-policies`` (the bundle shipped with fedgate: the quickstart's example world, for
trying fedgate, never for a real platform), ``--policies DIR``, ``$FEDGATE_POLICIES``,
``policies/`` of the enclosing git repository, ``./policies``. Anything else is an error that
says how to get a bundle (``fedgate init`` writes one).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from webhook.base.errors import UsageError

_HERE = Path(__file__).resolve().parent
BUNDLED = next(
    (p for p in (_HERE / "default_policies", _HERE.parent / "policies") if p.is_dir()),
    _HERE / "default_policies",
)
"""The example bundle shipped with fedgate (the example world of docs/bundle.md): packaged as
``compiler/default_policies`` in a wheel, ``policies/`` beside the sources in a checkout."""

VARIABLE = "FEDGATE_POLICIES"


def repository_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` holding ``.git`` (a git work tree's root)."""
    start = start.absolute()
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def resolve_policies(
    given: Path | None,
    *,
    example: bool = False,
    cwd: Path,
    environ: Mapping[str, str] | None = None,
) -> Path:
    """The bundle directory a command uses (see the module doc); raises UsageError saying what
    is wrong when the one named is not a directory, or when there is none."""
    env = os.environ if environ is None else environ
    if example:
        if given is not None:
            raise UsageError("give --policies DIR or --example-policies, not both")
        return BUNDLED
    if given is not None:
        return _directory(given, f"--policies {given}")
    if env.get(VARIABLE):
        return _directory(Path(env[VARIABLE]), f"{VARIABLE}={env[VARIABLE]}")
    root = repository_root(cwd)
    for candidate in (root / "policies" if root else None, cwd / "policies"):
        if candidate is not None and candidate.is_dir():
            return _near(candidate, cwd)
    where = f"the repository {root}" if root else str(cwd.absolute())
    raise UsageError(
        f"no policy bundle: there is no policies/ in {where}. Run `fedgate init` to write one, "
        f"give --policies DIR or set {VARIABLE}; to try fedgate with the example world of its "
        "quickstart, add --example-policies"
    )


def _near(path: Path, cwd: Path) -> Path:
    """``path`` relative to ``cwd`` when that is shorter (``policies``, ``../policies``), so
    messages name the bundle's files as the user reaches them, like the specs'."""
    relative = Path(os.path.relpath(path.absolute(), cwd.absolute()))
    return relative if len(str(relative)) <= len(str(path.absolute())) else path.absolute()


def _directory(path: Path, named: str) -> Path:
    if path.is_dir():
        return path
    if path.exists():
        raise UsageError(
            f"{named}: a file; the bundle is a directory (holding clusters.yaml, "
            "tenants.yaml, writers.yaml and rules/)"
        )
    raise UsageError(f"{named}: no such directory")

"""Where the policy bundle comes from when ``--policies`` is not given."""

from __future__ import annotations

from pathlib import Path

from webhook.bundle.load import BUNDLE_FILES

_HERE = Path(__file__).resolve().parent
BUNDLED = next(
    (p for p in (_HERE / "default_policies", _HERE.parent / "policies") if p.is_dir()),
    _HERE / "default_policies",
)
"""The default bundle shipped with fedgate (the example world of the README): packaged as
``compiler/default_policies`` in a wheel, ``policies/`` beside the sources in a checkout."""


def repository_root(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def default_policies(cwd: Path) -> Path:
    """``policies/`` of the repository holding ``cwd``, else of ``cwd``, else the bundled one."""
    root = repository_root(cwd)
    for candidate in (root / "policies" if root else None, cwd / "policies"):
        if candidate is not None and (candidate / BUNDLE_FILES[0]).is_file():
            return candidate
    return BUNDLED

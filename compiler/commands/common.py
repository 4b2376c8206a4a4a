"""What several commands share: where the specs and the tree are, the CEL backend, the bundle."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path

from compiler.compile.core import Compiled
from compiler.compile.incremental import PROOFS_AFTER_REVIEWS, compile_files
from compiler.output import Output
from compiler.policies import repository_root
from compiler.spec.load import find_spec_files
from webhook.base.errors import UsageError
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle
from webhook.engine.cel.engines import BACKENDS, DEFAULT_BACKEND

BACKEND_VARIABLE = "FEDGATE_CEL_BACKEND"
APPS, RENDERED = "apps", "rendered"


def add_tree_arguments(parser: argparse.ArgumentParser, out_help: str) -> None:
    """APPS (spec files or directories, also as --apps DIR) and --out DIR (the rendered tree)."""
    parser.add_argument(
        "apps",
        nargs="*",
        type=Path,
        metavar="APPS",
        help="app spec files or directories (default: apps/ of the repository)",
    )
    parser.add_argument(
        "--apps",
        dest="apps_option",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="the same as APPS, as an option (what a pre-commit hook's args can pass)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help=f"{out_help} (default: rendered/ of the repository)",
    )


def spec_files(*groups: list[Path]) -> list[Path]:
    """The spec files of every group of paths, each file once (by where it really is)."""
    found: dict[Path, Path] = {}
    for group in groups:
        for file in find_spec_files(group):
            found.setdefault(file.resolve(), file)
    return sorted(found.values())


@dataclass(frozen=True)
class Located:
    """Where a command works: the repository root (else the working directory), the spec
    files and directories, and the rendered tree; paths as a user reads them."""

    root: Path
    apps: list[Path]
    out: Path


def shown(path: Path) -> Path:
    """``path`` as the user would write it from the working directory (relative when that is
    shorter), so messages name files the way the user reaches them."""
    relative = Path(os.path.relpath(path.absolute()))
    return relative if len(str(relative)) <= len(str(path.absolute())) else path.absolute()


def bundle_named(args: argparse.Namespace) -> str:
    """Which bundle a summary line names: its directory, or the example one."""
    if args.example_policies:
        return "the example bundle shipped with fedgate (--example-policies)"
    return f"bundle {shown(args.policies)}"


def locate(apps: Sequence[Path], out: Path | None, *, streaming: bool = False) -> Located:
    """Specs and tree from the options, defaulting to apps/ and rendered/ of the repository
    (found from any directory inside it, as git does); refuses a tree that overlaps the specs,
    or that is a file."""
    cwd = Path.cwd()
    repository = repository_root(cwd)
    root = repository or cwd
    if not apps and not (root / APPS).is_dir():
        where = f"the repository {root}" if repository else "the working directory"
        raise UsageError(
            f"no app specs: there is no {APPS}/ in {where}; give the spec files or directories "
            "(APPS or --apps DIR), or run `fedgate init` to start a platform repository"
        )
    chosen = list(apps) or [shown(root / APPS)]
    tree = out if out is not None else shown(root / RENDERED)
    if not streaming:
        _refuse_overlap(chosen, tree)
        if tree.exists() and not tree.is_dir():
            raise UsageError(f"--out {tree} is a file; the rendered tree must be a directory")
    return Located(root, chosen, tree)


def _refuse_overlap(apps: Sequence[Path], out: Path) -> None:
    tree = out.resolve()
    for spec in apps:
        place = spec.resolve()
        if place == tree or tree in place.parents:
            raise UsageError(
                f"the app specs {spec} are inside the rendered tree {out}: fedgate would read "
                "its own output as specs; keep specs and --out apart"
            )
        if place in tree.parents:
            raise UsageError(
                f"--out {out} is inside the app specs {spec}: the next compile would read the "
                "rendered manifests as specs; choose an --out outside it"
            )


def add_base_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base",
        metavar="REF",
        help="compare with where this branch left REF (git merge-base REF HEAD) instead of git "
        "HEAD: the whole pull request, every commit, hooks skipped or not (CI: origin/main)",
    )


def add_backend_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cel-backend",
        choices=BACKENDS,
        default=None,
        help=f"CEL engine (default: ${BACKEND_VARIABLE}, else {DEFAULT_BACKEND})",
    )


def backend_name(args: argparse.Namespace) -> str:
    """--cel-backend, else FEDGATE_CEL_BACKEND (set and not empty), else the default: read here
    and only here."""
    chosen = getattr(args, "cel_backend", None) or os.environ.get(BACKEND_VARIABLE) or None
    if chosen is not None and chosen not in BACKENDS:
        raise UsageError(f"{BACKEND_VARIABLE}={chosen!r} is not one of {', '.join(BACKENDS)}")
    return chosen or DEFAULT_BACKEND


def load_policy_bundle(args: argparse.Namespace) -> Bundle:
    """The bundle ``--policies`` names, its exceptions judged on ``judging_day(args)``."""
    bundle = load_bundle(args.policies, backend_name(args), proofs_after=PROOFS_AFTER_REVIEWS)
    return replace(bundle, today=judging_day(args))


TODAY_VARIABLE = "FEDGATE_TODAY"


def judging_day(args: argparse.Namespace) -> date:
    """``--today``, else FEDGATE_TODAY (set and not empty: the pre-commit hook takes no
    flags from a commit), else today in UTC (the clock is read here and only here): the day
    the bundle's exceptions are judged on."""
    given: date | None = getattr(args, "today", None)
    if given is not None:
        return given
    variable = os.environ.get(TODAY_VARIABLE)
    if not variable:
        return datetime.now(UTC).date()
    try:
        return date.fromisoformat(variable)
    except ValueError:
        raise UsageError(f"{TODAY_VARIABLE}={variable!r} is not a date (YYYY-MM-DD)") from None


def compile_specs(
    out: Output,
    files: Sequence[Path],
    args: argparse.Namespace,
    *,
    cache: Path | None,
    rendered: bool = False,
    warn: bool = False,
) -> tuple[Compiled, Bundle]:
    """Compile ``files`` with the bundle and backend the options name, showing progress on a
    terminal (a cold compile of thousands of apps takes seconds); ``rendered`` and ``warn`` as
    ``compile_files`` takes them."""
    backend = backend_name(args)
    with out.progress("compiling") as progress:
        return compile_files(
            files,
            args.policies,
            cache=cache,
            backend=backend,
            progress=progress,
            rendered=rendered,
            today=judging_day(args),
            warn=warn,
        )

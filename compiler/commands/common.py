"""What several commands share: the CEL backend option and loading the bundle with it."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from compiler.spec.load import find_spec_files
from webhook.bundle.load import load_bundle
from webhook.bundle.model import Bundle
from webhook.engine.cel.backend import BACKENDS, DEFAULT_BACKEND
from webhook.errors import UsageError

BACKEND_VARIABLE = "FEDGATE_CEL_BACKEND"


def add_tree_arguments(parser: argparse.ArgumentParser, out_help: str) -> None:
    """APPS (spec files or directories) and --out DIR (the rendered tree)."""
    parser.add_argument(
        "apps",
        nargs="*",
        type=Path,
        metavar="APPS",
        help="app spec files or directories (default: apps)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("rendered"),
        metavar="DIR",
        help=f"{out_help} (default: rendered)",
    )


def near(path: Path) -> Path:
    """``path`` relative to the working directory when it is below it (for readable output)."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def spec_files(*groups: list[Path]) -> list[Path]:
    """The spec files of every group of paths, each file once (by where it really is)."""
    found: dict[Path, Path] = {}
    for group in groups:
        for file in find_spec_files(group):
            found.setdefault(file.resolve(), file)
    return sorted(found.values())


def add_backend_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cel-backend",
        choices=BACKENDS,
        default=None,
        help=f"CEL engine (default: ${BACKEND_VARIABLE}, else {DEFAULT_BACKEND})",
    )


def backend_name(args: argparse.Namespace) -> str:
    """--cel-backend, else FEDGATE_CEL_BACKEND, else the default: read here and only here."""
    chosen = getattr(args, "cel_backend", None) or os.environ.get(BACKEND_VARIABLE)
    return chosen or DEFAULT_BACKEND


def load_policy_bundle(args: argparse.Namespace) -> Bundle:
    name = backend_name(args)
    if name not in BACKENDS:
        raise UsageError(f"{BACKEND_VARIABLE}={name!r} is not one of {', '.join(BACKENDS)}")
    return load_bundle(args.policies, name)

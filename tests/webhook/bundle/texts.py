"""A bundle built from the texts of policies/'s files, some replaced: for tests of one file's
errors without a directory on disk."""

from __future__ import annotations

from tests.conftest import POLICIES
from webhook.base.yamlsource import parse_single
from webhook.bundle.load import BUNDLE_FILES, build_bundle
from webhook.bundle.model import Bundle


def bundle_files(**overrides: str) -> dict[str, str]:
    """policies/'s bundle files by name, ``NAME=text`` replacing ``NAME.yaml``."""
    files = {name: (POLICIES / name).read_text() for name in BUNDLE_FILES}
    files.update({f"{k}.yaml": v for k, v in overrides.items()})
    return files


def build_from_texts(files: dict[str, str]) -> Bundle:
    """The bundle of ``files`` (name to text), as the loader builds it."""
    return build_bundle(
        {name: parse_single(text, f"policies/{name}") for name, text in files.items()}
    )

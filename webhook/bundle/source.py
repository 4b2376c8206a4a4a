"""The text of a bundle's files, read once (``load.read_source``), before anything is built.

Its own module so that the loaders of each part (``load_rules``, ``vap``, ``expiry``) can take
it without importing the loader that calls them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from webhook.base.errors import Finding


@dataclass(frozen=True)
class BundleSource:
    """The text of every file a bundle is built from, read once: what the webhook's master
    process validates and keeps, and its workers compile (so a broken edit on disk never
    reaches them). ``root`` names the directory in error messages."""

    root: str
    files: Mapping[str, str]
    rule_folders: tuple[str, ...] = ()
    unreadable: tuple[Finding, ...] = ()
    vap_files: tuple[str, ...] = ()
    """``vaps/...yaml``: ValidatingAdmissionPolicies, bindings and their objects."""
    index: tuple[str, bytes] | None = None
    """(file name, bytes) of the synced tree's index (``index.py``), when the bundle has one."""

    def display(self, relative: str) -> str:
        return f"{self.root}/{relative}"

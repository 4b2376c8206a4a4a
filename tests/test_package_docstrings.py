"""The package docstrings are the map a newcomer reads: every module, folder and document they
name exists (so a move that forgets them fails here), and together they say where to start for
the common changes."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(
    path.parent for top in ("compiler", "webhook") for path in (ROOT / top).rglob("__init__.py")
)
LITERAL = re.compile(r"``([^`]+)``")
DOCUMENT = re.compile(r"\bdocs/[\w.-]+\.md\b")
ATTRIBUTE = re.compile(r"^(\w+)\.([A-Za-z_]\w*)$")


def docstring(package: Path) -> str:
    return ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""


def named_paths(text: str) -> list[str]:
    """The files and folders a docstring names: ``x.py``, ``x/``, ``x/y.py`` (up to a
    ``<placeholder>``), and docs/*.md."""
    found = [m for m in LITERAL.findall(text) if m.endswith((".py", "/")) or "/<" in m]
    found = [m.split("<")[0] if "<" in m else m for m in found]
    return found + DOCUMENT.findall(text)


def resolves(package: Path, name: str) -> bool:
    """Named from the package itself, or from the repository's root."""
    return any((base / name).exists() for base in (package, ROOT))


def test_named_paths_reads_modules_folders_placeholders_and_documents() -> None:
    text = "``a.py`` ``b/`` ``c/<d>.py`` ``review`` docs/x.md (``e.F``)"
    assert named_paths(text) == ["a.py", "b/", "c/", "docs/x.md"]


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_a_package_docstring_names_exists(package: Path) -> None:
    text = docstring(package)
    missing = [name for name in named_paths(text) if not resolves(package, name)]
    assert not missing, f"{package.relative_to(ROOT)}/__init__.py names absent {missing}"


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_attribute_a_package_docstring_names_exists(package: Path) -> None:
    """``builtins.BUILTINS``: where ``builtins`` is a module of the package, it has the name."""
    dotted = ".".join(package.relative_to(ROOT).parts)
    missing = []
    for literal in LITERAL.findall(docstring(package)):
        match = ATTRIBUTE.match(literal)
        if match is None or match[2] == "py" or not (package / f"{match[1]}.py").exists():
            continue
        module = importlib.import_module(f"{dotted}.{match[1]}")
        if not hasattr(module, match[2]):
            missing.append(literal)
    assert not missing


NEWCOMER = [
    # (the change, the package whose docstring answers it, what it says to open)
    ("a new app spec field", "compiler", "spec/model.py"),
    ("a new app spec field", "compiler/spec", "model.py"),
    ("a new built-in (python) rule", "webhook/engine", "builtins.py"),
    ("a new built-in rule", "webhook", "engine/builtins.py"),
    ("a new cel function", "webhook", "engine/cel/library.py"),
    ("a new cel function", "webhook/engine", "cel/library.py"),
    ("a new library function", "webhook/engine/cel", "library.py"),
    ("a new overrider", "webhook/karmada", "overriders.py"),
    ("a new overrider", "webhook", "karmada/overriders.py"),
    ("a new command or option", "compiler", "commands/common.py"),
    ("a new option", "compiler/commands", "common.py"),
]


@pytest.mark.parametrize(("change", "package", "module"), NEWCOMER)
def test_a_package_docstring_says_where_a_change_starts(
    change: str, package: str, module: str
) -> None:
    text = " ".join(docstring(ROOT / package).split())
    assert change in text.lower()
    start = text.lower().index(change)
    assert f"``{module}``" in text[start:], f"{package}: {change} -> {module}"
    assert resolves(ROOT / package, module)

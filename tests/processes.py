"""Which tests start processes, read from the source of tests/ without running it.

A test starts a process when its body, a function or class it calls, or a fixture it asks for
calls ``subprocess`` (run, Popen, ...) or ``os.system``/``os.exec*``/``os.spawn*``, following
names across the helper modules of tests/ (``from tests.helpers import git``,
``from tests.e2e import build`` then ``build.oracle(...)``). tests/test_markers.py holds every
such test to the ``slow`` mark, so that ``pytest -m "not slow"`` starts nothing."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

STARTERS = {
    "subprocess": {"run", "Popen", "call", "check_call", "check_output", "getoutput"},
    "os": {"system", "popen", "execv", "execvp", "execve", "spawnv", "spawnvp", "posix_spawn"},
}
"""Module attributes that start a process when called."""

Ref = tuple[str, str]
"""(dotted module, name in it); a method is ``Class.method``."""


@dataclass
class Function:
    """One function, method or class body: what it calls and which fixtures it asks for."""

    ref: Ref
    node: ast.AST
    starts: bool = False
    calls: set[Ref] = field(default_factory=set)
    fixtures: set[str] = field(default_factory=set)
    fixture: bool = False
    marked: bool = False


def module_name(root: Path, path: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def _imports(tree: ast.Module, module: str) -> tuple[dict[str, Ref], dict[str, str]]:
    """Names bound by ``from X import y`` (to refs) and ``import X`` / modules imported from a
    package (to dotted module names)."""
    names: dict[str, Ref] = {}
    modules: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name.split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                source = ".".join([*module.split(".")[: -node.level], source])
            for alias in node.names:
                local = alias.asname or alias.name
                names[local] = (source, alias.name)
                modules.setdefault(local, f"{source}.{alias.name}")
    return names, modules


def _decorated(node: ast.AST, what: str) -> bool:
    decorators = getattr(node, "decorator_list", [])
    return any(what in ast.unparse(decorator) for decorator in decorators)


def _used_fixtures(node: ast.AST) -> set[str]:
    """The fixtures named by ``@pytest.mark.usefixtures(...)`` on ``node``."""
    return {
        argument.value
        for decorator in getattr(node, "decorator_list", [])
        if isinstance(decorator, ast.Call) and ast.unparse(decorator.func).endswith("usefixtures")
        for argument in decorator.args
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str)
    }


def _module_marked(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        ):
            return "mark.slow" in ast.unparse(node.value)
    return False


def _functions(tree: ast.Module, module: str) -> Iterator[tuple[ast.AST, Ref, str | None, bool]]:
    """Top-level functions, classes and methods: (node, ref, enclosing class, class marked)."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node, (module, node.name), None, False
        elif isinstance(node, ast.ClassDef):
            yield node, (module, node.name), node.name, False
            marked = _decorated(node, "mark.slow")
            for inner in node.body:
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield inner, (module, f"{node.name}.{inner.name}"), node.name, marked


def _read(root: Path, path: Path) -> dict[Ref, Function]:
    module = module_name(root, path)
    tree = ast.parse(path.read_text(), str(path))
    names, modules = _imports(tree, module)
    module_marked = _module_marked(tree)
    found: dict[Ref, Function] = {}
    for node, ref, owner, class_marked in _functions(tree, module):
        function = Function(ref, node)
        function.fixture = _decorated(node, "fixture")
        function.marked = module_marked or class_marked or _decorated(node, "mark.slow")
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            function.fixtures = {argument.arg for argument in arguments} | _used_fixtures(node)
        body = node.body if isinstance(node, ast.ClassDef) else [node]
        for call in (n for part in body for n in ast.walk(part) if isinstance(n, ast.Call)):
            callee = call.func
            if isinstance(callee, ast.Name):
                if callee.id in names:
                    function.calls.add(names[callee.id])
                else:
                    function.calls.add((module, callee.id))
            elif isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name):
                base = callee.value.id
                if base in ("self", "cls") and owner is not None:
                    function.calls.add((module, f"{owner}.{callee.attr}"))
                elif modules.get(base) in STARTERS:
                    function.starts |= callee.attr in STARTERS[modules[base]]
                elif base in modules:
                    function.calls.add((modules[base], callee.attr))
        found[ref] = function
    # A class starts processes when one of its methods does (``Conversation(...)``).
    for ref in list(found):
        if "." in ref[1]:
            found[(module, ref[1].split(".")[0])].calls.add(ref)
    return found


def read_tests(root: Path) -> dict[Ref, Function]:
    """Every function of every module under ``root / "tests"``, with ``starts`` settled."""
    functions: dict[Ref, Function] = {}
    for path in sorted((root / "tests").rglob("*.py")):
        functions.update(_read(root, path))
    changed = True
    while changed:
        changed = False
        for function in functions.values():
            if function.starts:
                continue
            asked = (_fixture(functions, function.ref[0], name) for name in function.fixtures)
            called = (functions.get(ref) for ref in function.calls)
            if any(other is not None and other.starts for other in (*called, *asked)):
                function.starts = changed = True
    return functions


def _fixture(functions: dict[Ref, Function], module: str, name: str) -> Function | None:
    """Fixture ``name`` as a test of ``module`` sees it: its own, else the nearest conftest's."""
    parts = module.split(".")
    candidates = [(module, name)] + [
        (".".join([*parts[:depth], "conftest"]), name) for depth in range(len(parts) - 1, 0, -1)
    ]
    for ref in candidates:
        function = functions.get(ref)
        if function is not None and function.fixture:
            return function
    return None


def unmarked(root: Path) -> list[str]:
    """Tests that start a process and carry no ``slow`` mark, as ``path::name``."""
    found = []
    for (module, name), function in read_tests(root).items():
        test = name.rsplit(".", 1)[-1].startswith("test")
        in_test_module = module.rsplit(".", 1)[-1].startswith("test_")
        if test and in_test_module and function.starts and not function.marked:
            found.append(f"{module.replace('.', '/')}.py::{name.replace('.', '::')}")
    return found

"""No traceback is reachable from the command line: random argv (every command, its own options
mixed with junk) over random files, through ``main`` (the function the console script calls),
must exit 0, 1 or 2 and never print a traceback. Bounded: a fixed number of examples, each in
a fresh copy of a small platform repository, no deadline per example (a compile may take a
second on a busy machine)."""

from __future__ import annotations

import io
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import celpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.cli import main
from tests.compiler.command_lines import command_lines
from tests.conftest import EXAMPLES, POLICIES

pytestmark = pytest.mark.slow  # runs the fedgate command line as a process

FILES = ("apps/one.yaml", "apps/two.yml", "request.json", "suite/tests.yaml", "x", "policies/x")
"""Where random contents land: a spec, a request, a suite, loose files."""

SPEC = (EXAMPLES / "apps" / "status-page.yaml").read_text()
contents = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    st.sampled_from(
        [
            SPEC,
            SPEC.replace("replicas: 2", "replicas: 1.5"),
            SPEC + "---\n",
            "cases: 5\n",
            '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}',
            '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {}}',
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n",
            "a:\n\tb: 1\n",
            "[" * 200,
            "&a [*a]",
        ]
    ),
)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A platform repository to copy for every example (git, apps, bundle, a file)."""
    celpy.Environment()  # cel-python raises the recursion limit once, on first use: not in
    # the middle of an example, where hypothesis would (rightly) complain of a changed limit
    root = tmp_path_factory.mktemp("fuzz") / "template"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, timeout=60)
    shutil.copytree(EXAMPLES / "apps", root / "apps")
    shutil.copytree(POLICIES, root / "policies")
    (root / "notadir").write_text("")
    return root


@pytest.fixture(scope="module")
def busy_port() -> Iterator[int]:
    """A port held open, so that `serve` (whatever else argv says) cannot start a server."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield held.getsockname()[1]


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(argv=command_lines(), files=st.dictionaries(st.sampled_from(FILES), contents, max_size=3))
def test_no_traceback_from_any_command_line(
    template: Path, busy_port: int, tmp_path: Path, argv: list[str], files: dict[str, str]
) -> None:
    work = tmp_path / "work"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(template, work, symlinks=True)
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8", errors="surrogateescape")
    if argv[0] == "serve":  # the last --bind wins: never a running server
        argv = [*argv, "--bind", f"127.0.0.1:{busy_port}"]
    stdout, stderr = io.StringIO(), io.StringIO()
    previous, stdin = Path.cwd(), sys.stdin
    try:
        os.chdir(work)
        sys.stdin = io.StringIO(files.get("request.json", ""))
        code = main(argv, stdout=stdout, stderr=stderr)
    finally:
        os.chdir(previous)
        sys.stdin = stdin
    assert code in (0, 1, 2), (argv, stderr.getvalue())
    assert "Traceback" not in stdout.getvalue() + stderr.getvalue(), stderr.getvalue()

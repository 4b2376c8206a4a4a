"""``fedgate compile`` as a new user meets it: the exact message for each mistake, the listing,
counted nouns, --apps for hooks, and two compiles at once (through the installed entry point)."""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from compiler.spec.load import MAX_REPLICAS
from tests.compiler.commands.entry import FEDGATE, environment, fedgate, no_traceback, platform
from tests.conftest import ROOT

APP = """\
apiVersion: fedgate.dev/v1alpha1
kind: App
metadata: {{name: {name}, namespace: platform-demo}}
spec:
  tenant: team-a
  image: registry.example.com/platform/{name}:1.0
  replicas: {replicas}
  resources: {{requests: {{cpu: 10m, memory: 16Mi}}}}
  placement: {{clusters: [cluster-a]}}
{extra}"""


def app(name: str = "one", replicas: str = "1", extra: str = "") -> str:
    return APP.format(name=name, replicas=replicas, extra=extra)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return platform(tmp_path, apps=False)


def compile_text(repo: Path, text: str | bytes, *args: str) -> subprocess.CompletedProcess[str]:
    spec = repo / "apps" / "spec.yaml"
    spec.parent.mkdir(exist_ok=True)
    if isinstance(text, bytes):
        spec.write_bytes(text)
    else:
        spec.write_text(text)
    return fedgate("compile", *args, cwd=repo)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("value", "written"),
    [
        pytest.param("0755", "octal", id="octal"),
        pytest.param("1.10", "version", id="float"),
        pytest.param("9090", "port", id="int"),
        pytest.param("true", "flag", id="bool"),
        pytest.param("null", "nothing", id="null"),
        pytest.param("2024-01-01", "date", id="date-is-a-string-so-fine"),
    ],
)
def test_every_unquoted_non_string_in_env_is_refused_alike(
    repo: Path, value: str, written: str
) -> None:
    result = compile_text(repo, app(extra=f"  env:\n    X_{written.upper()}: {value}\n"))
    no_traceback(result)
    if written == "date":  # libyaml keeps timestamps as the text written: nothing is changed
        assert result.returncode == 0, result.stderr
        return
    assert result.returncode == 1
    assert result.stderr == (
        f"apps/spec.yaml:11: spec.env.X_{written.upper()}: must be a string (quote it)\n"
        "1 error in 1 file\n"
    )
    assert not (repo / "rendered").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "first_line"),
    [
        pytest.param(
            app(replicas="1.5"),
            "apps/spec.yaml:7: spec.replicas: must be a whole number, got 1.5",
            id="fraction-for-an-integer",
        ),
        pytest.param(
            app(replicas=str(MAX_REPLICAS + 1)),
            f"apps/spec.yaml:7: spec.replicas: must be at most {MAX_REPLICAS}, not "
            f"{MAX_REPLICAS + 1}",
            id="replicas-limit",
        ),
        pytest.param(
            app().replace("  tenant:", "\ttenant:"),
            "apps/spec.yaml:5:1: not valid YAML: a tab character; YAML indents with spaces "
            "only: replace the tab with spaces",
            id="tab",
        ),
        pytest.param(
            app().replace("  replicas: 1", "  replicas: [1"),
            "apps/spec.yaml:8:12: not valid YAML: while parsing a flow sequence did not find "
            "expected ',' or ']' (it started on line 7)",
            id="yaml-error-has-a-column",
        ),
        pytest.param(
            app().replace("team-a", "team-\x07a"),
            "apps/spec.yaml:5:16: not valid YAML: character U+0007 is not allowed in YAML "
            "(control characters are not allowed)",
            id="control-character",
        ),
        pytest.param(
            app().encode().replace(b"team-a", b"team-\xe9"),
            "apps/spec.yaml:5:16: not UTF-8 text (byte 0xe9 is not valid here); save the "
            "file as UTF-8",
            id="latin-1",
        ),
        pytest.param(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n"
            "  replicas: 1\n  template: {}\n",
            "apps/spec.yaml:1: this is a Deployment (apps/v1), not an app spec (apiVersion: "
            "fedgate.dev/v1alpha1, kind: App); keep only app specs under the spec directories",
            id="not-an-app-said-once",
        ),
        pytest.param(  # a bundle file (here argocd.yaml) under apps/ printed ten lines
            "argocd:\n  repoURL: https://git.example.com/platform.git\n  path: rendered\n",
            "apps/spec.yaml:1: this YAML has no apiVersion, kind, metadata or spec (its keys: "
            "argocd): it is not an app spec (apiVersion: fedgate.dev/v1alpha1, kind: App); keep "
            "only app specs under the spec directories",
            id="other-yaml-said-once",
        ),
    ],
)
def test_spec_mistakes_are_one_located_message(
    repo: Path, text: str | bytes, first_line: str
) -> None:
    result = compile_text(repo, text)
    no_traceback(result)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith(first_line), lines
    assert lines[1:] == ["1 error in 1 file"]


@pytest.mark.slow
def test_a_trailing_document_separator_is_an_empty_document(repo: Path) -> None:
    result = compile_text(repo, app() + "---\n")
    assert result.returncode == 0, result.stderr
    assert "compiled 1 app into" in result.stdout


@pytest.mark.slow
def test_a_missing_spec_file_is_said_without_errno(repo: Path) -> None:
    result = fedgate("compile", "apps/nope.yaml", cwd=repo)
    assert result.returncode == 1
    assert result.stderr == (
        "apps/nope.yaml: cannot read: no such file or directory\n1 error in 1 file\n"
    )


@pytest.mark.slow
def test_nouns_are_counted(repo: Path) -> None:
    result = compile_text(repo, app())
    assert re.search(r"^compiled 1 app into \d+ files in rendered/: \d+ added", result.stdout, re.M)
    again = fedgate("compile", "--check", cwd=repo)
    assert re.match(r"rendered/ is up to date \(\d+ files; bundle policies\)", again.stdout)


@pytest.mark.slow
def test_the_listing_is_complete_with_verbose(tmp_path: Path) -> None:
    repo = platform(tmp_path)
    short = fedgate("compile", "--out", "a", cwd=repo).stdout.splitlines()
    assert sum(line.startswith("  added") for line in short) == 20
    assert "  ... and 5 more added (-v lists them all)" in short
    full = fedgate("compile", "-v", "--out", "b", cwd=repo).stdout.splitlines()
    assert sum(line.startswith("  added") for line in full) == 25
    assert not any("more added" in line for line in full)


@pytest.mark.slow
def test_apps_as_an_option_for_hook_args(tmp_path: Path) -> None:
    repo = platform(tmp_path)
    (repo / "apps").rename(repo / "teams")
    result = fedgate("compile", "--apps", "teams", "--out", "deploy/rendered", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert "compiled 7 apps into 25 files in deploy/rendered/" in result.stdout


@pytest.mark.slow
def test_a_second_compile_waits_for_the_first(repo: Path, tmp_path: Path) -> None:
    """The lock, deterministically: the test holds it as a running compile would."""
    compile_text(repo, app())
    (repo / "apps" / "two.yaml").write_text(app("two"))
    log = tmp_path / "second.err"
    descriptor = os.open(repo / "rendered", os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        with log.open("w") as errors:
            second = subprocess.Popen(
                [str(FEDGATE), "compile"],
                cwd=repo,
                env=environment(),
                stdout=subprocess.DEVNULL,
                stderr=errors,
            )
        deadline = time.monotonic() + 60
        while "waiting" not in log.read_text() and time.monotonic() < deadline:
            assert second.poll() is None, log.read_text()
            time.sleep(0.1)
        time.sleep(0.5)  # were it not waiting, it would be writing now
        assert second.poll() is None
        assert not (repo / "rendered" / "platform-demo" / "two").exists()
    finally:
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        os.close(descriptor)
    assert second.wait(timeout=60) == 0, log.read_text()
    assert log.read_text() == (
        "fedgate: another fedgate compile is writing rendered/; waiting for it to finish\n"
    )
    assert (repo / "rendered" / "platform-demo" / "two" / "deployment.yaml").is_file()


@pytest.mark.slow
def test_two_compiles_at_once_leave_one_consistent_tree(tmp_path: Path) -> None:
    repo = platform(tmp_path, apps=False)
    (repo / "apps").mkdir()
    for number in range(150):
        (repo / "apps" / f"a{number}.yaml").write_text(app(f"a{number}"))
    runs = [
        subprocess.Popen(
            [str(FEDGATE), "compile", "--no-cache"],
            cwd=repo,
            env=environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [(r.wait(timeout=300), r.communicate()[1]) for r in runs]
    for code, err in results:
        assert code == 0, err
        assert "Traceback" not in err
    assert not list((repo / "rendered").rglob("*.fedgate-tmp"))
    assert not (repo / "rendered" / ".fedgate-manifest.next").exists()
    assert fedgate("compile", "--check", cwd=repo).returncode == 0


def test_the_replicas_limit_is_documented() -> None:
    guide = (ROOT / "docs" / "app-spec.md").read_text()
    assert f"at most {MAX_REPLICAS:,}" in guide


@pytest.mark.slow
def test_a_dangling_symlink_spec_is_an_error_not_a_removed_app(repo: Path, tmp_path: Path) -> None:
    """A spec shared by a symbolic link whose target went away was skipped without a word:
    compile removed the app's manifests (Argo CD prunes them) and exited 0."""
    (repo / "apps").mkdir()
    (repo / "apps" / "one.yaml").write_text(app("one"))
    shared = tmp_path / "shared" / "two.yaml"
    shared.parent.mkdir()
    shared.write_text(app("two"))
    (repo / "apps" / "two.yaml").symlink_to(shared)
    assert fedgate("compile", cwd=repo).returncode == 0
    deployment = repo / "rendered" / "platform-demo" / "two" / "deployment.yaml"
    assert deployment.is_file()
    shared.unlink()
    result = fedgate("compile", cwd=repo)
    no_traceback(result)
    assert result.returncode == 1, result.stdout
    assert result.stderr == (
        f"apps/two.yaml: cannot read: a symbolic link to {shared}, which does not exist\n"
        "1 error in 1 file\n"
    )
    assert deployment.is_file()
    check = fedgate("check", cwd=repo)
    assert check.returncode == 1 and "apps/two.yaml: cannot read: a symbolic link" in check.stderr


@pytest.mark.slow
@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_a_quota_overrun_is_reported_beside_another_file_s_error(repo: Path, cache: str) -> None:
    """The command-line guide says every error is reported at once; a tenant's quota overrun
    across files was hidden until every per-file error was fixed (the cross-file checks did not
    run), warm cache or cold."""
    (repo / "apps").mkdir(exist_ok=True)
    (repo / "apps" / "a.yaml").write_text(app("big-a", "15", "").replace("10m", "1"))
    (repo / "apps" / "b.yaml").write_text(app("big-b", "6", "").replace("10m", "1"))
    if cache == "warm":
        assert fedgate("compile", "apps/a.yaml", cwd=repo).returncode == 0
    (repo / "apps" / "typo.yaml").write_text(app("typo", "1", "  replcas: 2\n"))
    result = fedgate("compile", cwd=repo)
    no_traceback(result)
    assert result.returncode == 1
    assert "apps/typo.yaml:10: spec.replcas: unknown key 'replcas'" in result.stderr
    assert "tenant team-a would request 21 cpu over all its apps and clusters" in result.stderr
    assert result.stderr.endswith("2 errors in 2 files\n"), result.stderr

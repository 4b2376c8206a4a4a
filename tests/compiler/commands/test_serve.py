"""``fedgate serve`` refuses an address it cannot listen on at once (exit 2, one line) instead
of retrying forever, and its log names the address it listens at."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

import pytest
import trustme

from tests.compiler.commands.entry import FEDGATE, environment, fedgate, no_traceback
from tests.conftest import POLICIES

pytestmark = pytest.mark.slow  # starts fedgate serve


@pytest.mark.parametrize(
    ("bind", "message"),
    [
        pytest.param(
            "nonsense",
            "--bind nonsense: give HOST:PORT, e.g. 127.0.0.1:8443 or [::]:8443",
            id="not-host-port",
        ),
        pytest.param(
            "127.0.0.1:99999",
            "--bind 127.0.0.1:99999: give HOST:PORT, e.g. 127.0.0.1:8443 or [::]:8443",
            id="port-out-of-range",
        ),
        pytest.param(
            "host.invalid:8443",
            "--bind host.invalid:8443: cannot resolve 'host.invalid':",
            id="unresolvable",
        ),
        pytest.param(
            "192.0.2.1:8443",
            "--bind 192.0.2.1:8443: cannot assign requested address",
            id="not-this-machine",
        ),
    ],
)
def test_a_bad_bind_exits_2_at_once(tmp_path: Path, bind: str, message: str) -> None:
    started = time.monotonic()
    result = fedgate("serve", "--bind", bind, "--policies", str(POLICIES), cwd=tmp_path, timeout=30)
    assert time.monotonic() - started < 15
    no_traceback(result)
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"fedgate: {message}")


def test_a_port_in_use_exits_2_at_once(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = fedgate(
            "serve",
            "--bind",
            f"127.0.0.1:{port}",
            "--policies",
            str(POLICIES),
            "--output",
            "json",
            cwd=tmp_path,
            timeout=30,
        )
    assert result.returncode == 2
    message = f"--bind 127.0.0.1:{port}: address already in use"
    assert result.stderr == f"fedgate: {message}\n"
    assert json.loads(result.stdout)["errors"][0]["message"] == message


def test_the_log_names_the_address(tmp_path: Path) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    log = tmp_path / "serve.log"
    with log.open("w") as errors:
        server = subprocess.Popen(
            [
                str(FEDGATE),
                "serve",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "1",
                "--policies",
                str(POLICIES),
            ],
            cwd=tmp_path,
            env=environment(),
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
    try:
        deadline = time.monotonic() + 60
        while "Listening at" not in log.read_text() and time.monotonic() < deadline:
            assert server.poll() is None, log.read_text()
            time.sleep(0.1)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert f"Listening at: http://127.0.0.1:{port} (" in log.read_text()


@pytest.mark.parametrize(
    ("certfile", "message"),
    [
        pytest.param("tls.crt", "--certfile tls.crt: no such file", id="missing"),
        pytest.param(
            "certs", "--certfile certs: a directory; give the PEM file in it", id="a-directory"
        ),
    ],
)
def test_a_certificate_that_is_not_a_file_is_named_with_its_option(
    tmp_path: Path, certfile: str, message: str
) -> None:
    """`serve --certfile certs --keyfile certs` (the directory holding them) said "certs does
    not exist", which it does, without saying which option."""
    (tmp_path / "certs").mkdir()
    (tmp_path / "tls.key").write_text("")
    result = fedgate(
        "serve",
        "--certfile",
        certfile,
        "--keyfile",
        "tls.key",
        "--policies",
        str(POLICIES),
        cwd=tmp_path,
        timeout=60,
    )
    no_traceback(result)
    assert result.returncode == 2
    assert result.stderr == f"fedgate: {message}\n"


def test_a_certificate_with_another_certificates_key_is_refused_at_start(tmp_path: Path) -> None:
    """gunicorn's own TLS loader logged such a pair in each worker and served plain HTTP."""
    ca = trustme.CA()
    one, other = ca.issue_cert("localhost"), ca.issue_cert("localhost")
    one.cert_chain_pems[0].write_to_path(str(tmp_path / "tls.crt"))
    other.private_key_pem.write_to_path(str(tmp_path / "tls.key"))
    (tmp_path / "tls.key").chmod(0o600)
    result = fedgate(
        "serve",
        "--certfile",
        "tls.crt",
        "--keyfile",
        "tls.key",
        "--policies",
        str(POLICIES),
        cwd=tmp_path,
        timeout=60,
    )
    no_traceback(result)
    assert result.returncode == 2
    assert "do not load together" in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["--kubeconfig", "absent.yaml"],
            "--kubeconfig absent.yaml: [Errno 2] No such file or directory",
            id="no-kubeconfig",
        ),
        pytest.param(
            ["--kubeconfig", "exec.yaml"],
            "--kubeconfig exec.yaml: exec and auth-provider credentials are not supported",
            id="exec-plugin",
        ),
        pytest.param(
            ["--index-stale-seconds", "0"],
            "--index-stale-seconds must be a positive number of seconds",
            id="no-bound",
        ),
    ],
)
def test_a_live_index_fedgate_cannot_watch_with_exits_2_at_once(
    tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "exec.yaml").write_text(
        json.dumps(
            {
                "clusters": [{"name": "k", "cluster": {"server": "https://127.0.0.1:1"}}],
                "users": [{"name": "u", "user": {"exec": {"command": "aws"}}}],
                "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}],
                "current-context": "c",
            }
        )
    )
    result = fedgate("serve", "--policies", str(POLICIES), *args, cwd=tmp_path, timeout=30)
    no_traceback(result)
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"fedgate: {message}")

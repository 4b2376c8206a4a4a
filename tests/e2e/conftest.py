"""The live federation for tests/e2e: one per identity layout, started once, stopped after.

The suite runs only under ``make e2e`` (FEDGATE_E2E=1): ``make test`` reports it skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import build, controlplane

ENABLED = os.environ.get("FEDGATE_E2E") == "1"
HERE = Path(__file__).resolve().parent

ARGOCD = ("system:serviceaccount:kube-system:argocd-manager",)
ARGOCD_GROUPS = ("system:serviceaccounts", "system:serviceaccounts:kube-system")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if ENABLED:
        missing = [name for name, path in build.binaries().items() if not path.is_file()]
        reason = f"not built: {', '.join(missing)} (run `python -m tests.e2e.build`)"
    else:
        missing, reason = [], "the live federation runs under `make e2e` (FEDGATE_E2E=1)"
    if ENABLED and not missing:
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if HERE in Path(str(item.path)).parents:
            item.add_marker(skip)


@dataclass
class Federation:
    directory: Path
    env: dict[str, Any]

    @property
    def identities(self) -> str:
        return str(self.env["identities"])

    @property
    def karmada(self) -> Path:
        return Path(self.env["karmada"]["kubeconfig"])

    @property
    def members(self) -> list[str]:
        return sorted(self.env["members"])

    def kubectl(
        self,
        *args: str,
        user: str | None = None,
        groups: tuple[str, ...] = (),
        stdin: str | None = None,
        member: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """kubectl against Karmada (or a member), impersonating ``user`` and ``groups``."""
        config = Path(self.env["members"][member]["kubeconfig"]) if member else self.karmada
        identity = [f"--as={user}"] if user else []
        identity += [f"--as-group={group}" for group in groups]
        return controlplane.kubectl(config, *identity, *args, stdin=stdin, check=False)

    def json(self, *args: str, member: str | None = None) -> Any:
        result = self.kubectl(*args, "-o", "json", member=member)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    def audit(self) -> list[dict[str, Any]]:
        lines = Path(self.env["webhook"]["audit"]).read_text().splitlines()
        return [json.loads(line) for line in lines if line.startswith("{")]

    def log(self, name: str) -> str:
        return (self.directory / "logs" / f"{name}.log").read_text(errors="replace")


def eventually(what: str, check: Callable[[], Any], seconds: float = 120) -> Any:
    """Poll ``check`` until it returns something truthy; fail naming ``what`` and the last value."""
    deadline = time.monotonic() + seconds
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(1)
    pytest.fail(f"{what}: not so after {seconds:.0f} s (last: {last!r})")


def policies_for(identities: str, directory: Path) -> Path:
    """The shipped policies, in both layouts: writers.yaml names hack/deploy-karmada.sh's
    per-component users (system:karmada:*) and the one admin user the chart, the operator and
    karmadactl init give every component (system:admin), so a real installation of either
    needs no edit (with the admin layout unnamed, Karmada was locked out: no binding, no Work
    was ever created)."""
    del identities, directory
    return controlplane.REPO / "policies"


@pytest.fixture(scope="session", params=controlplane.IDENTITIES)
def federation(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Federation]:
    directory = tmp_path_factory.mktemp(f"federation-{request.param}")
    with running(directory, policies_for(request.param, directory), request.param) as federation:
        yield federation


@pytest.fixture(scope="session")
def synced(federation: Federation, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The examples compiled and synced as Argo CD does, once per layout (tests/e2e/sync.py;
    imported here, not at the top, since that module imports this one)."""
    from tests.e2e.sync import sync_examples  # noqa: PLC0415 - sync.py imports this module

    return sync_examples(federation, tmp_path_factory.mktemp(f"sync-{federation.identities}"))


@contextmanager
def running(directory: Path, policies: Path, identities: str) -> Iterator[Federation]:
    """`up` in ``directory`` (one that fails fails the test, naming the layout), `down` after."""
    try:
        env = controlplane.up(directory, policies, identities)
    except controlplane.UpError as error:
        pytest.fail(f"the federation did not come up ({identities}, {policies}): {error}")
    try:
        yield Federation(directory, env)
    finally:
        controlplane.down(directory)

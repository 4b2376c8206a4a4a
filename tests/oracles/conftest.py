"""What the oracle tests share: one conversation with Kubernetes' CEL oracle per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.oracles.build import Conversation, oracle
from tests.oracles.seeds import FIXED_SEED


@pytest.fixture(scope="module")
def kubernetes_cel() -> Iterator[Conversation]:
    """The CEL oracle (``cel/``: k8s.io/apiserver's environment), answering line by line."""
    with Conversation(oracle("cel")) as talk:
        yield talk


@pytest.fixture(autouse=True)
def show_a_fresh_seed_before_its_cases(request: pytest.FixtureRequest) -> None:
    """A test's fresh seed, printed past pytest's capture before its cases run: where a native
    engine takes the interpreter down with it (a segfault leaves no report, and the captured
    output goes with the process), the log still says how to replay the run."""
    callspec = getattr(request.node, "callspec", None)
    seed = callspec.params.get("seed") if callspec is not None else None
    if not isinstance(seed, int) or seed == FIXED_SEED:
        return
    with request.getfixturevalue("capsys").disabled():
        print(f"[FEDGATE_ORACLE_SEED={seed}]", end=" ", flush=True)

"""What the oracle tests share: one conversation with Kubernetes' CEL oracle per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.oracles.build import Conversation, oracle


@pytest.fixture(scope="module")
def kubernetes_cel() -> Iterator[Conversation]:
    """The CEL oracle (``cel/``: k8s.io/apiserver's environment), answering line by line."""
    with Conversation(oracle("cel")) as talk:
        yield talk

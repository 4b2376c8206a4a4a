"""The seeds of the generated oracle cases: one fixed, one fresh each run (and reported)."""

from __future__ import annotations

import os
import random

FIXED_SEED = 20261202


def fresh_seed() -> int:
    """FEDGATE_ORACLE_SEED when set (to replay a run), else a new random seed."""
    return int(os.environ.get("FEDGATE_ORACLE_SEED") or random.SystemRandom().randrange(2**32))


def seeds() -> list[int]:
    """The two seeds of a run: the fixed one, then a fresh one."""
    return [FIXED_SEED, fresh_seed()]

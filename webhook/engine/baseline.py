"""What an override's targets receive without it: worked out once per bundle, not per request.

``overrides.member-copies`` judges an OverridePolicy by what it changes in each member's copy of
every template it selects: the copies Karmada builds with the policy against those it builds
without it. The second set depends only on the bundle (the template and Git's other policies
in the index, the clusters), never on the request, unless the policy reviewed is itself one of
Git's (an update of a policy the index holds), which then is left out of it. So it is kept per
bundle, keyed by the template and by the policy left out when there is one: the keys are the
index's, however many policies are sent. A 1.9 KB OverridePolicy CREATE on the shipped bundle:
5.06 M instructions a review before, 3.59 M after (callgrind, ``bench/instructions.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webhook.bundle.index import Key, key_of
from webhook.bundle.model import Bundle
from webhook.karmada.detector import Policies
from webhook.karmada.propagation import MemberCopy, propagate


def copies_without(
    bundle: Bundle,
    target: Mapping[str, Any],
    without: Policies,
    left_out: Key | None,
) -> Mapping[str, MemberCopy]:
    """``propagate(target, without, bundle.clusters).copies``, once per bundle: ``target`` is a
    template of the bundle's index, ``without`` the index's policies for its namespace less
    ``left_out`` (the reviewed policy's key, when the index holds it; else None). The copies
    are shared: read them, never change them."""
    return bundle.memo(
        "copies-without",
        (key_of(target), left_out),
        lambda: propagate(target, without, bundle.clusters).copies,
    )

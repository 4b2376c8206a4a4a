"""What two engines (or a bundle and its round trip) must agree on in a Decision."""

from __future__ import annotations

from webhook.engine.decision import Decision


def essence(decision: Decision) -> tuple[object, ...]:
    """Everything but the text of evaluation errors, which each engine words its own way."""
    return (
        decision.allowed,
        tuple(
            (v.rule, v.pointer, v.action, v.status, v.message if v.status != "error" else "")
            for v in decision.violations
        ),
    )

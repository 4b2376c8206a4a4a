"""Who is writing: the API server's ``userInfo`` mapped to a writer of the bundle."""

from __future__ import annotations

from dataclasses import dataclass

from webhook.bundle.model import Bundle
from webhook.engine.request import UserInfo

TENANT = "tenant"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Identity:
    """A request's writer: a bundle writer's name, ``tenant`` (with its name) or ``unknown``."""

    writer: str
    username: str
    tenant: str | None = None

    def describe(self) -> str:
        """``alice (team-a)``, ``system:serviceaccount:...:argocd-manager (git)``."""
        role = self.tenant if self.writer == TENANT else self.writer
        return f"{self.username or '<anonymous>'} ({role})"


def identify(user: UserInfo, bundle: Bundle) -> Identity:
    """The first bundle writer that matches, else the tenant whose group the user is in."""
    for writer in bundle.writers:
        if writer.matches(user.username, user.groups):
            return Identity(writer.name, user.username)
    for tenant in bundle.tenants.values():
        if not set(tenant.groups).isdisjoint(user.groups):
            return Identity(TENANT, user.username, tenant.name)
    return Identity(UNKNOWN, user.username)

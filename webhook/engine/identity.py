"""Who is writing: the API server's ``userInfo`` mapped to a writer of the bundle."""

from __future__ import annotations

from dataclasses import dataclass

from webhook.bundle.model import Bundle, Tenant
from webhook.engine.request import UserInfo

TENANT = "tenant"
UNKNOWN = "unknown"
KARMADA = "karmada"


@dataclass(frozen=True)
class Identity:
    """A request's writer: a bundle writer's name, ``tenant`` (with its name) or ``unknown``;
    for the ``karmada`` writer, the Karmada component the user is (None: no component)."""

    writer: str
    username: str
    tenant: str | None = None
    component: str | None = None

    def describe(self) -> str:
        """``alice (team-a)``, ``system:serviceaccount:...:argocd-manager (git)``,
        ``system:admin (karmada controller-manager)``."""
        role = self.tenant if self.writer == TENANT else self.writer
        if self.writer == KARMADA:
            role = f"karmada {self.component or 'component unknown to writers.yaml'}"
        return f"{self.username or '<anonymous>'} ({role})"


def identify(user: UserInfo, bundle: Bundle, namespace_tenant: Tenant | None = None) -> Identity:
    """The first bundle writer that matches, else a tenant whose group the user is in: the
    tenant of the namespace written in when the user is one of its people (a person in two
    tenants' groups writes in each tenant's namespace as that tenant), else the first."""
    for writer in bundle.writers:
        if writer.matches(user.username, user.groups):
            component = (
                bundle.karmada_component(user.username, user.groups)
                if writer.name == KARMADA
                else None
            )
            return Identity(writer.name, user.username, component=component)
    if namespace_tenant is not None and not set(namespace_tenant.groups).isdisjoint(user.groups):
        return Identity(TENANT, user.username, namespace_tenant.name)
    for tenant in bundle.tenants.values():
        if not set(tenant.groups).isdisjoint(user.groups):
            return Identity(TENANT, user.username, tenant.name)
    return Identity(UNKNOWN, user.username)

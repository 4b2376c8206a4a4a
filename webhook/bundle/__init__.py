"""The policy bundle: the platform team's world (clusters, tenants, writers) and its rules."""

from webhook.bundle.model import Bundle, Cluster, Tenant, Writer

__all__ = ["Bundle", "Cluster", "Tenant", "Writer"]

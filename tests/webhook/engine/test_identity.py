"""Who writes: a person in two tenants' groups, and Karmada's components in both of the
layouts Karmada's installers use (each component its own user; one system:admin for all)."""

from __future__ import annotations

import pytest

from tests.webhook.bundle.texts import build_from_texts, bundle_files
from webhook.base.errors import BundleError
from webhook.bundle.model import Bundle
from webhook.engine.identity import Identity, identify
from webhook.engine.request import UserInfo

BOTH = UserInfo("carol@example.com", ("team-a", "team-b", "system:authenticated"))


@pytest.mark.parametrize(
    ("namespace", "tenant"),
    [
        pytest.param("payments", "team-b", id="in team-b's namespace, team-b"),
        pytest.param("platform-demo", "team-a", id="in team-a's namespace, team-a"),
        pytest.param(None, "team-a", id="elsewhere, the first tenant of tenants.yaml"),
    ],
)
def test_a_person_in_two_tenants_is_the_namespaces_tenant(
    bundle: Bundle, namespace: str | None, tenant: str
) -> None:
    where = bundle.tenant_of_namespace(namespace) if namespace else None
    assert identify(BOTH, bundle, where) == Identity("tenant", BOTH.username, tenant)


def test_a_person_of_one_tenant_stays_it_in_anothers_namespace(bundle: Bundle) -> None:
    alice = UserInfo("alice@example.com", ("team-a",))
    assert identify(alice, bundle, bundle.tenants["team-b"]).tenant == "team-a"


@pytest.mark.parametrize(
    ("username", "groups", "component"),
    [
        ("system:karmada:karmada-controller-manager", ("system:masters",), "controller-manager"),
        ("system:admin", ("system:masters",), "controller-manager"),
        ("system:karmada:karmada-scheduler", ("system:masters",), "scheduler"),
        ("system:karmada:karmada-descheduler", ("system:masters",), "descheduler"),
        ("system:karmada:agent:cluster-b", ("system:karmada:agents",), "agent"),
        ("system:karmada:karmada-search", ("system:masters",), "search"),
        ("system:karmada:karmada-metrics-adapter", ("system:masters",), "metrics-adapter"),
        ("system:karmada:karmada-webhook", ("system:masters",), "webhook"),
        ("system:karmada:karmada-scheduler-estimator", (), "scheduler-estimator"),
        ("system:karmada:karmada-aggregated-apiserver", (), "aggregated-apiserver"),
        ("system:karmada:karmada-interpreter", (), None),
    ],
)
def test_karmada_components_of_the_shipped_bundle(
    bundle: Bundle, username: str, groups: tuple[str, ...], component: str | None
) -> None:
    found = identify(UserInfo(username, groups), bundle)
    assert (found.writer, found.component) == ("karmada", component)


def test_without_karmada_components_each_component_is_its_own_user() -> None:
    """A writers.yaml that names no components gets hack/deploy-karmada.sh's users; one that
    names a karmada user no component covers is refused (that user could write nothing)."""
    shipped = bundle_files()["writers.yaml"]
    text = (
        shipped.split("karmadaComponents:")[0] + "ledgerOwners:" + shipped.split("ledgerOwners:")[1]
    )
    with pytest.raises(BundleError, match="system:admin is a karmada user no component"):
        build_from_texts(bundle_files(writers=text))
    bundle = build_from_texts(
        bundle_files(writers=text.replace("    usernames: [system:admin]\n", ""))
    )
    scheduler = identify(UserInfo("system:karmada:karmada-scheduler"), bundle)
    manager = identify(UserInfo("system:karmada:karmada-controller-manager"), bundle)
    assert (scheduler.component, manager.component) == ("scheduler", "controller-manager")


def test_karmada_components_are_checked() -> None:
    text = bundle_files()["writers.yaml"].replace(
        "  search: {usernames: [system:karmada:karmada-search]}",
        "  serach: {usernames: [system:karmada:karmada-search]}\n  search: {}",
    )
    with pytest.raises(BundleError) as caught:
        build_from_texts(bundle_files(writers=text))
    messages = [f.render() for f in caught.value.findings]
    assert any("karmadaComponents.serach: unknown key 'serach'" in m for m in messages), messages
    assert any(
        "karmadaComponents.search: a component needs usernames, usernamePrefixes or groups" in m
        for m in messages
    ), messages

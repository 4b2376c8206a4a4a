"""Which rules a change of policies/ removes or weakens, and which it acknowledges."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.check.weakenings import acknowledge, weakenings
from tests.conftest import POLICIES


def _bundle() -> dict[str, str]:
    return {
        p.relative_to(POLICIES).as_posix(): p.read_text()
        for p in POLICIES.rglob("*.yaml")
        if p.is_file()
    }


def _edit(files: dict[str, str], path: str, old: str, new: str) -> dict[str, str]:
    assert old in files[path], (path, old)
    return {**files, path: files[path].replace(old, new, 1)}


BASE = _bundle()
TAG = "rules/image-tag/binding.yaml"
TAG_RULE = "rules/image-tag/rule.yaml"
STAGED = """action: scoped
scopedEnforcementActions:
  - {action: warn, enforcementPoints: [{name: check}]}
  - {action: audit, enforcementPoints: [{name: webhook}]}
  - {action: deny, enforcementPoints: [{name: '*'}]}"""


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        pytest.param(
            {p: t for p, t in BASE.items() if not p.startswith("rules/image-tag/")},
            [("image-tag", ("removed (policies/rules/image-tag/ is gone or broken)",))],
            id="a-rule-folder-deleted",
        ),
        pytest.param(
            _edit(BASE, TAG, "action: deny", "action: warn"),
            [("image-tag", ("action deny -> warn",))],
            id="deny-to-warn",
        ),
        pytest.param(
            _edit(BASE, TAG, "action: deny", "action: audit"),
            [("image-tag", ("action deny -> audit",))],
            id="deny-to-audit",
        ),
        pytest.param(
            _edit(BASE, TAG, "action: deny", STAGED),
            [("image-tag", ("action at webhook deny -> audit", "action at check deny -> warn"))],
            id="staged-at-two-points",
        ),
        pytest.param(
            _edit(BASE, TAG, "action: deny", STAGED.replace("action: audit", "action: deny")),
            [("image-tag", ("action at check deny -> warn",))],
            id="staged-in-pre-commit-only",
        ),
        pytest.param(
            _edit(
                BASE,
                TAG,
                "{apiGroups: [batch], kinds: [Job, CronJob]}",
                "{apiGroups: [batch], kinds: [Job]}",
            ),
            [("image-tag", ("its match no longer covers batch/CronJob",))],
            id="a-narrower-match",
        ),
        pytest.param(
            _edit(
                BASE,
                TAG,
                "  scope: tenant\n",
                "  scope: tenant\n  objectSelector: {matchLabels: {checked: 'yes'}}\n",
            ),
            [("image-tag", ("its objectSelector was added or changed",))],
            id="an-object-selector-added",
        ),
        pytest.param(
            _edit(
                BASE,
                TAG_RULE,
                "&& !c.image.endsWith(':latest')))\n    message: every image",
                "))\n    message: every image",
            ),
            [
                (
                    "image-tag",
                    (
                        "validation removed or changed: [object.kind == 'Pod' ? object.spec : "
                        "object.kind == 'CronJob' ? ob...",
                    ),
                )
            ],
            id="an-expression-loosened",
        ),
        pytest.param(
            _edit(BASE, TAG, "action: deny", "action: deny\nfailurePolicy: Ignore"),
            [("image-tag", ("failurePolicy Fail -> Ignore",))],
            id="failure-policy-ignore",
        ),
        pytest.param(
            _edit(
                BASE,
                TAG,
                "{apiGroups: [batch], kinds: [Job, CronJob]}",
                "{apiGroups: ['*'], kinds: ['*']}",
            ),
            [],
            id="a-wider-match-is-no-weakening",
        ),
        pytest.param(
            _edit(BASE, TAG_RULE, "    message: every image needs", "    message: images need"),
            [],
            id="a-reworded-message-is-no-weakening",
        ),
    ],
)
def test_weakenings(new: dict[str, str], expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert [(w.rule, w.changes) for w in weakenings(BASE, new, "policies")] == expected


def test_a_stronger_action_is_no_weakening() -> None:
    warned = _edit(BASE, TAG, "action: deny", "action: warn")
    assert weakenings(warned, BASE, "policies") == []
    assert [w.changes for w in weakenings(BASE, warned, "policies")] == [("action deny -> warn",)]


def test_a_changed_parameter_counts_as_a_weakening() -> None:
    """One more Karmada identity allowed to write cluster-wide policies."""
    path = "rules/tenancy.cluster-policy/binding.yaml"
    writers = "karmadaWriters: [system:karmada:karmada-controller-manager]"
    new = _edit(BASE, path, writers, writers.replace("]", ", system:karmada:karmada-search]"))
    [found] = weakenings(BASE, new, "policies")
    assert (found.rule, found.changes) == (
        "tenancy.cluster-policy",
        ("params changed (karmadaWriters); fedgate cannot tell they are not looser",),
    )


ACK = "- rule: image-tag\n  reason: the tag rule moves to a ValidatingAdmissionPolicy\n"


@pytest.mark.parametrize(
    ("base", "new", "reason", "problems"),
    [
        pytest.param(
            None, ACK, "the tag rule moves to a ValidatingAdmissionPolicy", [], id="added"
        ),
        pytest.param(ACK, ACK, None, [], id="an-old-entry-acknowledges-nothing"),
        pytest.param(None, None, None, [], id="none"),
        pytest.param(
            None,
            "- {rule: image-tag, reason: '  '}\n",
            None,
            ["w.yaml:1: [0].reason: say why the rule is weakened"],
            id="no-reason",
        ),
        pytest.param(
            None,
            "rule: image-tag\n",
            None,
            ["w.yaml:1: a list of {rule, reason} entries"],
            id="not-a-list",
        ),
    ],
)
def test_acknowledgements(
    base: str | None, new: str | None, reason: str | None, problems: list[str]
) -> None:
    found = weakenings(BASE, _edit(BASE, TAG, "action: deny", "action: warn"), "policies")
    acknowledged, findings = acknowledge(found, base, new, "w.yaml")
    assert [w.reason for w in acknowledged] == [reason]
    assert [f.render() for f in findings] == problems


def test_the_shipped_bundle_loads_as_the_loader_does() -> None:
    """``rules`` builds every rule of the bundle the webhook loads (none silently dropped,
    which would hide its removal)."""
    from compiler.check.weakenings import rules  # noqa: PLC0415
    from webhook.bundle.load import load_bundle  # noqa: PLC0415

    loaded = {r.id for r in load_bundle(Path(POLICIES), proofs=False).rules}
    assert set(rules(BASE, "policies")) == loaded


TENANTS = "tenants.yaml"


@pytest.mark.parametrize(
    ("path", "old", "new", "expected"),
    [
        pytest.param(
            TENANTS,
            "clusters: [cluster-a, cluster-b]\n",
            "clusters: [cluster-a, cluster-b, cluster-c]\n",
            [
                (
                    "tenant:team-a",
                    (
                        "may now run on cluster-c",  # and its unscoped data follows it
                        "its ConfigMaps may now go to cluster-c",
                        "its PersistentVolumeClaims may now go to cluster-c",
                    ),
                )
            ],
            id="a-cluster-given",
        ),
        pytest.param(
            TENANTS,
            "      Secret: {clusterLabels: {residency: eu}}\n    registries:\n"
            "      - registry.example.com/platform/",
            "    registries:\n      - registry.example.com/platform/",
            [],  # team-a's clusters are all eu: the Secret scope is its clusters either way
            id="a-scope-that-changes-nothing",
        ),
        pytest.param(
            TENANTS,
            "      - registry.example.com/payments/\n",
            "      - registry.example.com/payments/\n      - docker.io/\n",
            [("tenant:team-b", ("may now pull from docker.io/",))],
            id="a-registry-added",
        ),
        pytest.param(
            TENANTS,
            'quota: {cpu: "20", memory: 40Gi}',
            'quota: {cpu: "200", memory: 40Gi}',
            [("tenant:team-a", ("its cpu quota is raised or removed",))],
            id="a-quota-raised",
        ),
        pytest.param(
            TENANTS,
            'quota: {cpu: "20", memory: 40Gi}',
            'quota: {cpu: "10", memory: 40Gi}',
            [],
            id="a-quota-lowered",
        ),
    ],
)
def test_world_weakenings(
    path: str, old: str, new: str, expected: list[tuple[str, tuple[str, ...]]]
) -> None:
    changed = _edit(BASE, path, old, new)
    assert [(w.rule, w.changes) for w in weakenings(BASE, changed, "policies")] == expected


def test_a_writer_matching_more_people_is_a_weakening() -> None:
    text = BASE["writers.yaml"]
    assert "platform-admins" in text
    changed = {
        **BASE,
        "writers.yaml": text.replace("platform-admins]", "platform-admins, team-a]", 1),
    }
    found = [(w.rule, w.changes) for w in weakenings(BASE, changed, "policies")]
    assert found == [("writer:platform", ("now matches group team-a",))]


def test_nothing_changed_is_no_weakening() -> None:
    assert weakenings(BASE, BASE, "policies") == []


def test_a_kind_given_to_the_tenants_projects_is_a_weakening() -> None:
    text = BASE["argocd.yaml"]
    assert "tenantKinds" not in text
    changed = {**BASE, "argocd.yaml": text + "  tenantKinds:\n    - {group: '', kind: Service}\n"}
    found = [(w.rule, w.changes) for w in weakenings(BASE, changed, "policies")]
    assert found == [("argocd:tenantKinds", ("tenants' AppProjects now permit core/Service",))]

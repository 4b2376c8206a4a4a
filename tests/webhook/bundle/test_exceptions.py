"""policies/exceptions/*.yaml: loaded into the bundle, every mistake named with file and line,
and the platform's own safety rules never liftable."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import POLICIES
from webhook.base.errors import BundleError
from webhook.base.yamlsource import parse_single
from webhook.bundle.exceptions import (
    API_VERSION,
    KIND,
    PROTECTED,
    Known,
    build_exception,
    protected_reason,
)
from webhook.bundle.load import bundle_from_source, load_bundle, read_source
from webhook.bundle.source import BundleSource

GOOD = """\
apiVersion: fedgate.dev/v1alpha1
kind: PolicyException
metadata:
  name: legacy-demo
spec:
  rules: [image-tag]
  match:
    namespaces: [platform-demo]
    kinds: [{apiGroups: [apps], kinds: [Deployment]}]
    names: [demo-http]
    objectSelector: {matchLabels: {app.kubernetes.io/name: demo-http}}
    clusters: [cluster-b]
    writers: [git, tenant]
  reason: the vendor image has no tag until its 4.0
  owner: platform@example.com
  expires: 2026-12-31
"""


@pytest.fixture(scope="module")
def source() -> BundleSource:
    return read_source(POLICIES)


def _load(source: BundleSource, text: str, name: str = "legacy-demo.yaml") -> list[str]:
    files = {**source.files, f"exceptions/{name}": text}
    try:
        bundle_from_source(replace(source, files=files))
    except BundleError as exc:
        return [f.render() for f in exc.findings]
    return []


def test_an_exception_loads_with_every_field(source: BundleSource) -> None:
    files = {**source.files, "exceptions/legacy-demo.yaml": GOOD}
    (exception,) = bundle_from_source(replace(source, files=files)).exceptions
    assert exception.name == "legacy-demo"
    assert exception.rules == {"image-tag"}
    assert exception.namespaces == {"platform-demo"}
    assert exception.kinds == {("apps", "Deployment")}
    assert exception.names == {"demo-http"}
    assert exception.object_selector == {"matchLabels": {"app.kubernetes.io/name": "demo-http"}}
    assert exception.clusters == {"cluster-b"}
    assert exception.writers == {"git", "tenant"}
    assert exception.expires == date(2026, 12, 31)
    assert exception.owner == "platform@example.com"
    assert exception.source == f"{POLICIES}/exceptions/legacy-demo.yaml:1"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param(
            "rules: [image-tag]",
            "rules: [image-tags]",
            "legacy-demo.yaml:6: spec.rules[0]: no rule 'image-tags' in the bundle",
            id="unknown rule",
        ),
        pytest.param(
            "rules: [image-tag]",
            "rules: [ownership.karmada-component]",
            "legacy-demo.yaml:6: spec.rules[0]: ownership.karmada-component can never be lifted "
            "by an exception: single-writer ownership keeps fedgate's ledger and Karmada's own",
            id="protected: ownership",
        ),
        pytest.param(
            "rules: [image-tag]",
            "rules: [image-tag, tenancy.platform-namespace]",
            "legacy-demo.yaml:6: spec.rules[1]: tenancy.platform-namespace can never be lifted "
            "by an exception: the platform's namespaces",
            id="protected: the platform's namespaces",
        ),
        pytest.param(
            "  expires: 2026-12-31\n",
            "",
            "legacy-demo.yaml:5: spec: expires is required",
            id="expires is mandatory",
        ),
        pytest.param(
            "expires: 2026-12-31",
            "expires: next friday",
            "legacy-demo.yaml:16: spec.expires: 'next friday' is not a date: write YYYY-MM-DD",
            id="expires is a date",
        ),
        pytest.param(
            "  reason: the vendor image has no tag until its 4.0\n",
            "",
            "legacy-demo.yaml:5: spec: reason is required",
            id="reason is mandatory",
        ),
        pytest.param(
            "  owner: platform@example.com\n",
            "",
            "legacy-demo.yaml:5: spec: owner is required",
            id="owner is mandatory",
        ),
        pytest.param(
            "    namespaces: [platform-demo]\n",
            "",
            "legacy-demo.yaml:7: spec.match: namespaces is required",
            id="namespaces are mandatory",
        ),
        pytest.param(
            "namespaces: [platform-demo]",
            "namespaces: []",
            "legacy-demo.yaml:8: spec.match.namespaces: must name at least one namespace",
            id="namespaces not empty",
        ),
        pytest.param(
            "namespaces: [platform-demo]",
            "namespaces: ['*']",
            "legacy-demo.yaml:8: spec.match.namespaces[0]: '*' is not valid: a namespace name",
            id="namespaces are names, not wildcards",
        ),
        pytest.param(
            "clusters: [cluster-b]",
            "clusters: [cluster-z]",
            "legacy-demo.yaml:12: spec.match.clusters[0]: no cluster 'cluster-z' in the bundle",
            id="unknown cluster",
        ),
        pytest.param(
            "writers: [git, tenant]",
            "writers: [gti]",
            "legacy-demo.yaml:13: spec.match.writers[0]: no writer 'gti' in the bundle",
            id="unknown writer",
        ),
        pytest.param(
            "name: legacy-demo",
            "name: legacy-other",
            "legacy-demo.yaml:4: metadata.name: must equal the file name 'legacy-demo'",
            id="named as its file",
        ),
        pytest.param(
            "kind: PolicyException",
            "kind: Exception",
            "legacy-demo.yaml:2: kind: must be PolicyException",
            id="kind",
        ),
        pytest.param(
            "    names: [demo-http]\n",
            "    name: [demo-http]\n",
            "legacy-demo.yaml:10: spec.match.name: unknown key 'name'",
            id="typo named",
        ),
    ],
)
def test_a_bad_exception_is_refused_with_file_and_line(
    source: BundleSource, old: str, new: str, expected: str
) -> None:
    assert old in GOOD
    found = _load(source, GOOD.replace(old, new))
    assert any(expected in f and f.startswith(f"{POLICIES}/exceptions/") for f in found), found


def test_every_protected_rule_names_a_rule_of_the_bundle_and_says_why() -> None:
    ids = {r.id for r in load_bundle(POLICIES).rules}
    for name, why in PROTECTED:
        assert why
        assert name in ids or (name.endswith(".") and any(i.startswith(name) for i in ids))
    assert {i for i in ids if protected_reason(i) is None} == {
        "image-tag",
        "max-replicas",
        "pod-security-baseline",
        "registry-allowed",
        "resource-requests",
        "stateful-purge",
        "stateful-purge.targets",
        "tenancy.conflict-overwrite",
        "tenancy.explicit-selectors",
        "tenancy.override-registry",
        "tenancy.placement-scope",
        "tenancy.quota",
    }


def test_exceptions_load_from_the_folder_and_from_a_flat_configmap(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    (folder / "exceptions").mkdir(parents=True)
    (folder / "exceptions" / "legacy-demo.yaml").write_text(GOOD)
    (folder / "exceptions" / "README.md").write_text("not an exception")
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "exceptions__legacy-demo.yaml").write_text(GOOD)
    for name, text in read_source(POLICIES).files.items():
        for root, relative in ((folder, name), (flat, name.replace("/", "__"))):
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_text(text)
    for root in (folder, flat):
        assert [e.name for e in load_bundle(root).exceptions] == ["legacy-demo"]


def test_the_guide_lists_every_protected_rule() -> None:
    guide = (POLICIES.parent / "docs" / "exceptions.md").read_text()
    for name, _ in PROTECTED:
        assert f"`{name}*`" in guide or f"`{name}`" in guide, name


_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=12), st.sampled_from(["2026-12-31"])
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["namespaces", "kinds", "apiGroups", "rules", "x", "matchLabels"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    spec=st.dictionaries(
        st.sampled_from(["rules", "match", "reason", "owner", "expires", "extra"]),
        _VALUES,
        max_size=6,
    )
)
def test_any_document_is_an_exception_or_findings_never_a_crash(spec: dict[str, Any]) -> None:
    text = yaml.safe_dump(
        {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": "x"}, "spec": spec}
    )
    known = Known(frozenset({"image-tag"}), frozenset({"cluster-a"}), frozenset({"git"}))
    exception, findings = build_exception(parse_single(text, "x.yaml"), "x", known)
    assert (exception is None) == bool(findings)
    if exception is not None:
        assert exception.rules <= {"image-tag"} and exception.namespaces

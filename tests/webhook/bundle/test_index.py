"""The index of the synced tree: built canonically, read back from gzip or JSON, refused whole
when it is not one, and loaded with the bundle it sits in."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest

from webhook.base.errors import BundleError
from webhook.bundle.index import TreeIndex, build_index, gzipped, parse_index
from webhook.bundle.load import load_bundle

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "a", "namespace": "ns"},
}
POLICY = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "PropagationPolicy",
    "metadata": {"name": "a", "namespace": "ns"},
}
CLUSTER_POLICY = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "ClusterOverridePolicy",
    "metadata": {"name": "everywhere"},
}


def test_built_the_same_whatever_the_order_and_read_back() -> None:
    one = build_index([DEPLOYMENT, POLICY, CLUSTER_POLICY])
    assert one == build_index([CLUSTER_POLICY, POLICY, DEPLOYMENT])
    assert gzipped(one) == gzipped(one)  # no name, no time in the header
    for data in (one, gzipped(one)):
        index, findings = parse_index(data, "index.json")
        assert findings == [] and index is not None
        assert index.get(("apps", "Deployment", "ns", "a")) == DEPLOYMENT
        assert index.templates("ns") == (DEPLOYMENT,)
        assert index.templates(None) == (DEPLOYMENT,)
        assert set(map(id, index.policies("ns"))) == {
            id(index.get(("policy.karmada.io", "PropagationPolicy", "ns", "a"))),
            id(index.get(("policy.karmada.io", "ClusterOverridePolicy", "", "everywhere"))),
        }
        assert index.policies("elsewhere") == (
            index.get(("policy.karmada.io", "ClusterOverridePolicy", "", "everywhere")),
        )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(b"not json", "not JSON", id="not json"),
        pytest.param(b"\x1f\x8bbroken", "not a gzip stream", id="broken gzip"),
        pytest.param(
            b'{"apiVersion": "v1", "kind": "List"}',
            "not a fedgate.dev/v1alpha1 TreeIndex",
            id="other kind",
        ),
        pytest.param(
            orjson.dumps(
                {"apiVersion": "fedgate.dev/v1alpha1", "kind": "TreeIndex", "objects": {}}
            ),
            "must be a list of objects",
            id="objects not a list",
        ),
        pytest.param(
            orjson.dumps(
                {
                    "apiVersion": "fedgate.dev/v1alpha1",
                    "kind": "TreeIndex",
                    "objects": [1, {"kind": "X"}],
                }
            ),
            "is not an object",
            id="odd objects",
        ),
    ],
)
def test_what_is_not_an_index_is_refused(data: bytes, message: str) -> None:
    index, findings = parse_index(data, "idx")
    assert index is None
    assert any(message in f.message for f in findings), findings


def test_a_bomb_is_refused_before_it_is_decompressed_whole() -> None:
    bomb = gzip.compress(b" " * (4 * 1024 * 1024), compresslevel=9)  # 4 KiB on the wire
    index, findings = parse_index(bomb, "idx", limit=1024 * 1024)
    assert index is None and "once decompressed" in findings[0].message


def test_the_bundle_loads_its_index_and_refuses_a_broken_one(policies_copy: Path) -> None:
    bundle = load_bundle(policies_copy)
    assert isinstance(bundle.index, TreeIndex) and len(bundle.index.objects) > 10
    (policies_copy / "index.json").unlink()
    (policies_copy / "index.json.gz").write_bytes(gzipped(build_index([DEPLOYMENT])))
    assert list(load_bundle(policies_copy).index.objects) == [("apps", "Deployment", "ns", "a")]  # type: ignore[union-attr]
    (policies_copy / "index.json.gz").write_bytes(b"[1,2")
    with pytest.raises(BundleError, match=r"index\.json\.gz: not JSON"):
        load_bundle(policies_copy)
    (policies_copy / "index.json.gz").unlink()
    assert load_bundle(policies_copy).index is None

"""Manifest files read as Argo CD's repo server reads them: a list's items are the objects."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from compiler.argocd.manifests import parse_manifests
from webhook.karmada.gojson import EncodingError, RawNumber
from webhook.karmada.goyaml import yaml_to_json

# PyYAML's dumper leaves y and n unquoted, which go-yaml (and so Argo CD) reads as booleans
NAMES = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True).filter(lambda n: n not in "yn")
OBJECTS = st.builds(
    lambda kind, name, data: {
        "apiVersion": "v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": "ns"},
        **({"data": data} if data else {}),
    },
    st.sampled_from(["ConfigMap", "Secret", "Service"]),
    NAMES,
    st.dictionaries(NAMES, NAMES, max_size=2),
)


@given(st.lists(OBJECTS, max_size=5), st.sampled_from(["List", "ConfigMap", "ConfigMapList"]))
def test_a_list_is_its_items_as_separate_documents(objects: list[dict], kind: str) -> None:  # type: ignore[type-arg]
    """Whatever the list's kind (``IsList`` looks at ``items`` only), Argo CD applies exactly
    the items, in order, and never the list itself."""
    separate, problems = parse_manifests(
        "".join(f"---\n{yaml.safe_dump(o)}" for o in objects), "a.yaml"
    )
    assert problems == []
    listed = {"apiVersion": "v1", "kind": kind, "metadata": {"name": "l"}, "items": objects}
    for text, file in ((yaml.safe_dump(listed), "b.yaml"), (json.dumps(listed), "b.json")):
        found, problems = parse_manifests(text, file)
        assert problems == []
        assert [m.object for m in found] == [m.object for m in separate]
        assert [m.index for m in found] == list(range(len(objects)))


@pytest.mark.parametrize(
    ("text", "objects", "problems"),
    [
        pytest.param(
            "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n"
            "    metadata: {name: a}\n  - kind: Secret\n    metadata: {name: b}\n",
            [("ConfigMap", 4)],
            [
                (
                    7,
                    "items[1].apiVersion",
                    "apiVersion must be a non-empty string (Argo CD applies each of a list's "
                    "items as an object of its own)",
                )
            ],
            id="an-item-without-apiVersion",
        ),
        pytest.param(
            "apiVersion: v1\nkind: ConfigMapList\nitems: null\n", [], [], id="a-null-list"
        ),
        pytest.param(
            "apiVersion: v1\nkind: Thing\nmetadata: {name: t}\nitems: null\nspec: {}\n",
            [("Thing", 1)],
            [],
            id="items-null-beside-spec-is-an-object",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Thing\nmetadata: {name: t}\nitems: {a: b}\n",
            [("Thing", 1)],
            [],
            id="items-not-a-list-is-an-object",
        ),
        pytest.param(
            "apiVersion: v1\nitems: []\n",
            [],
            [(1, "kind", "kind must be a non-empty string")],
            id="a-list-needs-a-kind",
        ),
    ],
)
def test_lists_as_argo_cd_reads_them(
    text: str, objects: list[tuple[str, int]], problems: list[tuple[int, str, str]]
) -> None:
    found, findings = parse_manifests(text, "x.yaml")
    assert [(m.object["kind"], m.line) for m in found] == objects
    assert [(f.line, f.path, f.message) for f in findings] == problems


# Argo CD decodes manifests with go-yaml v2 (sigs.k8s.io/yaml), and sends what encoding/json
# writes: YAML 1.1 as PyYAML reads it would call `y` text and `1e3` text.
@pytest.mark.parametrize(
    ("scalar", "applied"),
    [
        ("y", True),
        ("Y", True),
        ("n", False),
        ("N", False),
        ("yes", True),
        ("off", False),
        ("1e3", 1000),
        ("1.0", 1),
        ("1.5", 1.5),
        ("0o17", 15),
        ("1_000", 1000),
        ("1:30", "1:30"),
        ("'y'", "y"),
        ("!!str y", "y"),
        ("~", None),
        ("2026-12-01", "2026-12-01"),
    ],
)
def test_scalars_are_typed_as_argo_cd_applies_them(scalar: str, applied: object) -> None:
    text = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\nvalue: {scalar}\n"
    [manifest], findings = parse_manifests(text, "x.yaml")
    assert findings == []
    assert manifest.object["value"] == applied
    assert type(manifest.object["value"]) is type(applied)


PLAIN = st.one_of(
    st.sampled_from(["y", "N", "on", "Off", "~", "null", ".inf", "-.Inf", ".5", "0x1F", "0b101"]),
    st.from_regex(r"[-+]?[0-9_]{1,6}(\.[0-9]{0,3})?([eE][-+]?[0-9]{1,2})?", fullmatch=True),
    st.from_regex(r"[a-zA-Z][a-zA-Z0-9]{0,4}", fullmatch=True),
)


@given(PLAIN)
def test_every_plain_scalar_is_what_go_yaml_hands_encoding_json(scalar: str) -> None:
    """Held to the go-yaml v2 reader Karmada's fieldOverrider path already uses
    (``webhook.karmada.goyaml``): the API server reads the JSON number it writes."""
    text = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\nvalue: {scalar}\n"
    try:
        expected = json.loads(json.dumps(yaml_to_json(text)["value"]))
    except EncodingError:  # NaN or an infinity: json.Marshal fails, Argo CD applies nothing
        return
    if isinstance(expected, str) and isinstance(yaml_to_json(text)["value"], RawNumber):
        expected = json.loads(expected)
    [manifest], _ = parse_manifests(text, "x.yaml")
    assert manifest.object["value"] == expected
    assert type(manifest.object["value"]) is type(expected)


def test_a_merge_key_is_still_refused_when_scalars_are_read_as_argo_cd_reads_them() -> None:
    """go-yaml merges ``<<``; fedgate refuses it rather than read a literal key."""
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  <<: {a: b}\n"
    found, [finding] = parse_manifests(text, "x.yaml")
    assert found == [] and "merge keys" in finding.message

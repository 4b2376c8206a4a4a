"""Image references as Karmada splits them: its tables (``cases/imageparser.yaml``, ported
from karmada-io/karmada v1.18.0 pkg/util/imageparser/parser_test.go), the grammar's refusals
(from github.com/distribution/reference as vendored there), and properties."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.webhook.karmada.tables import image_parse_cases, image_tables
from webhook.karmada.imageparser import (
    Components,
    ImageParseError,
    override_image,
    parse,
    split_hostname,
)


@pytest.mark.parametrize("row", image_parse_cases())
def test_parse(row: dict[str, Any]) -> None:
    parts = parse(row["image"])
    assert str(parts) == row["image"]
    assert (parts.hostname, parts.repository, parts.tag, parts.digest) == (
        row["hostname"],
        row["repository"],
        row["tag"],
        row["digest"],
    )


@pytest.mark.parametrize(
    "row", [pytest.param(r, id=r["name"]) for r in image_tables()["splitHostname"]]
)
def test_split_hostname(row: dict[str, Any]) -> None:
    assert split_hostname(row["input"]) == (row["hostname"], row["repository"])


@pytest.mark.parametrize("row", [pytest.param(r, id=r["name"]) for r in image_tables()["examples"]])
def test_examples(row: dict[str, Any]) -> None:
    image = row["image"]
    for component, operator, value, expected in row["steps"]:
        image = override_image(image, component, operator, value)
        assert image == expected


def image_override_cases() -> list[Any]:
    return [
        pytest.param(r, id=f"{r['image']} {r['component']} {r['operator']} {r['value']}")
        for r in image_tables()["overrides"]
    ]


@pytest.mark.parametrize("row", image_override_cases())
def test_override_image_as_karmada_does(row: dict[str, Any]) -> None:
    if "error" in row:
        with pytest.raises(ImageParseError):
            override_image(row["image"], row["component"], row["operator"], row["value"])
        return
    assert (
        override_image(row["image"], row["component"], row["operator"], row["value"])
        == (row["want"])
    )


@pytest.mark.parametrize("row", [pytest.param(r, id=r["name"]) for r in image_tables()["string"]])
def test_components_string(row: dict[str, Any]) -> None:
    parts = Components(row["hostname"], row["repository"], row["tag"])
    assert str(parts) == f"{parts}" == row["want"]
    assert parse(row["want"]) == parts


@pytest.mark.parametrize(
    ("image", "message"),
    [
        pytest.param("", "at least one component", id="empty"),
        pytest.param("Nginx:1", "must be lowercase", id="uppercase"),
        pytest.param("nginx:1\n", "invalid reference format", id="trailing-newline"),
        pytest.param("nginx@sha256:abc", "invalid reference format", id="short-digest"),
        pytest.param(
            "nginx@md5:" + "a" * 32, "unsupported digest algorithm", id="unknown-algorithm"
        ),
        pytest.param(
            "nginx@sha256:" + "a" * 63 + "A", "invalid checksum digest format", id="uppercase-hex"
        ),
        pytest.param(
            "nginx@sha512:" + "a" * 64, "invalid checksum digest length", id="wrong-length"
        ),
        pytest.param("a" * 256, "more than 255", id="too-long"),
        pytest.param("nginx:-1", "invalid reference format", id="bad-tag"),
    ],
)
def test_references_karmada_cannot_parse(image: str, message: str) -> None:
    with pytest.raises(ImageParseError, match=message):
        parse(image)


def test_a_tag_and_a_digest_keep_the_tag_only() -> None:
    """reference.Parse gives a reference that is Tagged: Karmada's Parse takes the tag and never
    looks at the digest, so the copy loses it."""
    image = "registry.example.com/app:1@sha256:" + "a" * 64
    assert str(parse(image)) == "registry.example.com/app:1"


def test_set_tag_or_digest_ignores_what_is_neither() -> None:
    assert Components("h", "r", "1").with_tag_or_digest("not a tag!") == Components("h", "r", "1")


_COMPONENT = st.from_regex(r"[a-z0-9]+(?:[._-][a-z0-9]+){0,2}", fullmatch=True)
_HOST = st.one_of(
    st.just(""),
    st.from_regex(r"[a-z0-9]+(?:\.[a-z0-9]+){0,2}(?::[0-9]{1,5})?", fullmatch=True),
)
_TAG = st.one_of(st.just(""), st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}", fullmatch=True))


@given(host=_HOST, path=st.lists(_COMPONENT, min_size=1, max_size=3), tag=_TAG)
@settings(max_examples=300, deadline=None)
def test_valid_references_round_trip(host: str, path: list[str], tag: str) -> None:
    image = (f"{host}/" if host else "") + "/".join(path) + (f":{tag}" if tag else "")
    parts = parse(image)
    assert str(parts) == image
    assert ((parts.hostname and f"{parts.hostname}/{parts.repository}") or parts.repository) == (
        image.rsplit(":", 1)[0] if tag else image
    )


@given(st.text(max_size=300))
@settings(max_examples=500, deadline=None)
def test_anything_parses_or_is_refused(text: str) -> None:
    """Never another exception, and what parses writes back as a valid reference."""
    try:
        parts = parse(text)
    except ImageParseError:
        return
    assert parse(str(parts)) == parts

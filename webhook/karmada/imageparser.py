"""Image references as Karmada v1.18's image overrider reads and writes them.

Ported from karmada ``pkg/util/imageparser`` (``parser.go``, ``lifted.go``) at tag v1.18.0 and
the grammar it parses with, ``github.com/distribution/reference`` (``regexp.go``,
``reference.go``) and ``github.com/opencontainers/go-digest`` as vendored there:

- ``parse`` is ``reference.Parse`` (the full grammar: lowercase path components, a domain
  only before the first ``/``, a tag, a digest of a registered algorithm with the right length)
  followed by Karmada's ``SplitHostname`` on the name, which takes the first path segment as
  the registry host only when it holds a ``.`` or a ``:`` or is ``localhost``. So
  ``platform/demo-http:1.0`` has no host and the repository ``platform/demo-http``.
- With both a tag and a digest the digest is dropped (``Parse`` keeps the tag only).
- ``Components.with_tag_or_digest`` is ``SetTagOrDigest``: a value that is neither a tag nor a
  digest changes nothing.

Go's regexp ``$`` matches only at the end of the text, and ``\\w`` only ASCII: the patterns
below use ``\\Z`` and ``re.ASCII`` so that ``"nginx\\n"`` fails here as it fails there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

_ALPHANUMERIC = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN_NAME = _DOMAIN_COMPONENT + r"(?:\." + _DOMAIN_COMPONENT + r")*"
_HOST = r"(?:" + _DOMAIN_NAME + r"|\[(?:[a-fA-F0-9:]+)\])"
_DOMAIN_AND_PORT = _HOST + r"(?::[0-9]+)?"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}"
_PATH_COMPONENT = _ALPHANUMERIC + r"(?:" + _SEPARATOR + _ALPHANUMERIC + r")*"
_REMOTE_NAME = _PATH_COMPONENT + r"(?:/" + _PATH_COMPONENT + r")*"
_NAME = r"(?:" + _DOMAIN_AND_PORT + r"/)?" + _REMOTE_NAME

REFERENCE = re.compile(
    r"^(" + _NAME + r")(?::(" + _TAG + r"))?(?:@(" + _DIGEST + r"))?\Z", re.ASCII
)
ANCHORED_NAME = re.compile(r"^(?:(" + _DOMAIN_AND_PORT + r")/)?(" + _REMOTE_NAME + r")\Z", re.ASCII)
ANCHORED_TAG = re.compile(r"^" + _TAG + r"\Z", re.ASCII)
ANCHORED_DIGEST = re.compile(r"^" + _DIGEST + r"\Z", re.ASCII)

NAME_TOTAL_LENGTH_MAX = 255
DIGEST_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}
"""The algorithms Karmada's binary registers (crypto/sha256 and crypto/sha512), hex length."""
_ENCODED = re.compile(r"^[a-f0-9]+\Z", re.ASCII)


class ImageParseError(ValueError):
    """An image reference Karmada cannot parse (its override fails for that cluster)."""


def _validate_digest(digest: str) -> None:
    """go-digest ``Digest.Validate``."""
    index = digest.find(":")
    if index <= 0 or index + 1 == len(digest):
        raise ImageParseError("invalid digest format")
    algorithm, encoded = digest[:index], digest[index + 1 :]
    if algorithm not in DIGEST_LENGTHS:
        raise ImageParseError(f"unsupported digest algorithm {algorithm!r}")
    if len(encoded) != DIGEST_LENGTHS[algorithm]:
        raise ImageParseError("invalid checksum digest length")
    if not _ENCODED.match(encoded):
        raise ImageParseError("invalid checksum digest format")


def split_hostname(name: str) -> tuple[str, str]:
    """Karmada's ``SplitHostname``: (hostname, repository)."""
    index = name.find("/")
    if index == -1 or (not any(c in name[:index] for c in ".:") and name[:index] != "localhost"):
        return "", name
    return name[:index], name[index + 1 :]


@dataclass(frozen=True)
class Components:
    """``imageparser.Components``: hostname, repository, and a tag or a digest."""

    hostname: str = ""
    repository: str = ""
    tag: str = ""
    digest: str = ""

    @property
    def full_repository(self) -> str:
        return f"{self.hostname}/{self.repository}" if self.hostname else self.repository

    def __str__(self) -> str:
        if self.tag:
            return f"{self.full_repository}:{self.tag}"
        if self.digest:
            return f"{self.full_repository}@{self.digest}"
        return self.full_repository

    @property
    def tag_or_digest(self) -> str:
        return self.tag or self.digest

    def with_tag_or_digest(self, value: str) -> Components:
        """``SetTagOrDigest``: a tag replaces both, a digest replaces both, anything else
        changes nothing."""
        if ANCHORED_TAG.match(value):
            return replace(self, tag=value, digest="")
        if ANCHORED_DIGEST.match(value):
            return replace(self, digest=value, tag="")
        return self

    def without_tag_or_digest(self) -> Components:
        """``RemoveTagOrDigest``: the tag if there is one, else the digest."""
        return replace(self, tag="") if self.tag else replace(self, digest="")


def parse(image: str) -> Components:
    """``imageparser.Parse``; raises ImageParseError where ``reference.Parse`` fails."""
    match = REFERENCE.match(image)
    if match is None:
        if image == "":
            raise ImageParseError("repository name must have at least one component")
        if REFERENCE.match(image.lower()) is not None:
            raise ImageParseError("repository name must be lowercase")
        raise ImageParseError("invalid reference format")
    name, tag, digest = match[1], match[2] or "", match[3] or ""
    name_match = ANCHORED_NAME.match(name)
    path = name_match[2] if name_match else name
    if len(path) > NAME_TOTAL_LENGTH_MAX:
        raise ImageParseError(
            f"repository name must not be more than {NAME_TOTAL_LENGTH_MAX} characters"
        )
    if digest:
        _validate_digest(digest)
    hostname, repository = split_hostname(name)
    return Components(hostname, repository, tag, "" if tag else digest)


def override_image(image: str, component: str, operator: str, value: str) -> str:
    """The image after one imageOverrider entry (``overrideImage`` in imageoverride.go): ``add``
    appends ``value`` to the component, ``replace`` sets it, ``remove`` clears it."""
    parts = parse(image)
    if component == "Registry":
        hostname = {"add": parts.hostname + value, "replace": value, "remove": ""}
        parts = replace(parts, hostname=hostname.get(operator, parts.hostname))
    elif component == "Repository":
        repository = {"add": parts.repository + value, "replace": value, "remove": ""}
        parts = replace(parts, repository=repository.get(operator, parts.repository))
    elif component == "Tag":
        if operator == "add":
            parts = parts.with_tag_or_digest(parts.tag_or_digest + value)
        elif operator == "replace":
            parts = parts.with_tag_or_digest(value)
        elif operator == "remove":
            parts = parts.without_tag_or_digest()
    else:
        raise ImageParseError(f"unsupported image component({component})")
    return str(parts)

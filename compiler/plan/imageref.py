"""Image references split the way Karmada's image overrider splits them (pkg/util/imageparser).

Karmada parses with the distribution reference grammar, then takes the hostname as everything
before the first ``/`` (so ``library/nginx`` has the "hostname" ``library``): mirrored here,
quirks included, so plan shows what Karmada will really write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

_DIGEST = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$")
_TAG = re.compile(r"^[\w][\w.-]{0,127}$")


@dataclass(frozen=True)
class ImageRef:
    hostname: str = ""
    repository: str = ""
    tag: str = ""
    digest: str = ""

    @classmethod
    def parse(cls, image: str) -> ImageRef:
        name, digest = image, ""
        if "@" in name:
            name, digest = name.split("@", 1)
        tag = ""
        slash, colon = name.rfind("/"), name.rfind(":")
        if colon > slash:
            name, tag = name[:colon], name[colon + 1 :]
        hostname, _, repository = name.partition("/") if "/" in name else ("", "", name)
        return cls(hostname, repository, tag, "" if tag else digest)

    def __str__(self) -> str:
        full = f"{self.hostname}/{self.repository}" if self.hostname else self.repository
        if self.tag:
            return f"{full}:{self.tag}"
        return f"{full}@{self.digest}" if self.digest else full

    def with_tag_or_digest(self, value: str) -> ImageRef:
        """Karmada's SetTagOrDigest: a tag replaces both, a digest replaces both, else nothing."""
        if _TAG.match(value):
            return replace(self, tag=value, digest="")
        if _DIGEST.match(value):
            return replace(self, digest=value, tag="")
        return self


def override_image(image: str, component: str, operator: str, value: str) -> str:
    """The image after one imageOverrider entry (add appends to the component)."""
    ref = ImageRef.parse(image)
    if component == "Registry":
        ref = replace(
            ref,
            hostname={"add": ref.hostname + value, "replace": value, "remove": ""}.get(
                operator, ref.hostname
            ),
        )
    elif component == "Repository":
        ref = replace(
            ref,
            repository={"add": ref.repository + value, "replace": value, "remove": ""}.get(
                operator, ref.repository
            ),
        )
    elif component == "Tag":
        if operator == "remove":
            ref = replace(ref, tag="") if ref.tag else replace(ref, digest="")
        elif operator in ("add", "replace"):
            current = ref.tag or ref.digest
            ref = ref.with_tag_or_digest(current + value if operator == "add" else value)
    return str(ref)

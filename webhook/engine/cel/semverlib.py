"""Kubernetes' semver library (apiserver/pkg/cel/library/semverlib.go): versions parsed and
ordered as github.com/blang/semver/v4 does, with Kubernetes' optional normalization."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_NUMBER = re.compile(r"0|[1-9][0-9]*")
_IDENTIFIER = re.compile(r"[0-9A-Za-z-]+")
UINT64_MAX = 2**64 - 1


class SemverError(ValueError):
    """Not a semantic version."""


@dataclass(frozen=True)
class Semver:
    """``kubernetes.Semver``; its text leaves the build metadata out, which no comparison
    reads (two versions differing only there are equal, as in blang/semver)."""

    major: int
    minor: int
    patch: int
    pre: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        version = f"{self.major}.{self.minor}.{self.patch}"
        return f"{version}-{'.'.join(self.pre)}" if self.pre else version


@lru_cache(maxsize=1024)
def parse(text: str, normalize: bool = False) -> Semver:
    if normalize:
        text = _normalized(text)
    core, plus, build = text.partition("+")
    if plus and not all(_IDENTIFIER.fullmatch(part) for part in build.split(".")):
        raise SemverError(f"invalid build metadata in {text!r}")
    core, dash, pre = core.partition("-")
    parts = core.split(".")
    if len(parts) != 3:
        raise SemverError(f"{text!r}: no major, minor and patch version")
    numbers = []
    for part in parts:
        if not _NUMBER.fullmatch(part) or int(part) > UINT64_MAX:
            raise SemverError(f"{text!r}: invalid version number {part!r}")
        numbers.append(int(part))
    identifiers: tuple[str, ...] = ()
    if dash:
        identifiers = tuple(pre.split("."))
        for identifier in identifiers:
            if not _IDENTIFIER.fullmatch(identifier):
                raise SemverError(f"{text!r}: invalid prerelease {identifier!r}")
            if identifier.isdigit() and not _NUMBER.fullmatch(identifier):
                raise SemverError(f"{text!r}: prerelease {identifier!r} has a leading zero")
    return Semver(numbers[0], numbers[1], numbers[2], identifiers)


def _normalized(text: str) -> str:
    """Kubernetes' normalizeAndParse: no ``v`` prefix, no leading zeros, missing minor and
    patch added."""
    text = text.removeprefix("v")
    parts = text.split(".", 2)
    for index, part in enumerate(parts):
        if len(part) > 1:
            part = part.lstrip("0")  # noqa: PLW2901
            if not part or not part[0].isdigit():
                part = "0" + part  # noqa: PLW2901
            parts[index] = part
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise SemverError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return ".".join(parts)


def semver(text: str, normalize: bool = False) -> Semver:
    return parse(text, normalize)


def is_semver(text: str, normalize: bool = False) -> bool:
    try:
        parse(text, normalize)
    except SemverError:
        return False
    return True


def compare(a: Semver, b: Semver) -> int:
    """blang/semver's Compare: the numbers, then a version without prerelease above one with;
    numeric identifiers below alphanumeric ones, numbers by value, the rest by ASCII."""
    for x, y in ((a.major, b.major), (a.minor, b.minor), (a.patch, b.patch)):
        if x != y:
            return 1 if x > y else -1
    if not a.pre or not b.pre:
        return (not a.pre) - (not b.pre)
    for one, other in zip(a.pre, b.pre, strict=False):
        if one == other:
            continue
        if one.isdigit() and other.isdigit():
            return 1 if int(one) > int(other) else -1
        if one.isdigit() != other.isdigit():
            return -1 if one.isdigit() else 1
        return 1 if one > other else -1
    return (len(a.pre) > len(b.pre)) - (len(a.pre) < len(b.pre))

"""Policy test suites: requests and the decisions they must get, run by pytest and fedgate test.

A suite is a ``tests.yaml`` with ``cases``; each case is a full AdmissionReview file
(``request: file.yaml``) or an inline request (``operation``, ``user``, ``object``,
``oldObject``, ``subResource``, ``namespace``, ``kind``), optionally the enforcement ``point``
it is reviewed at (default: every rule as enforced), and an ``expect``: ``allowed``, the
exact set of violated ``rules``, ``messages`` and ``warnings`` (regular expressions that must
each match one). ``run_case`` is pure; ``load_suite`` reads files.

A suite's ``world`` says which clusters, tenants, writers and synced tree its cases are written
against: ``own`` (the default), the bundle's; ``example``, the example world fedgate ships
(the shipped rules' suites are: they test the rules' logic, so a platform that describes its
own clusters and tenants keeps them meaningful, and its own suites test its world).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from webhook.base.errors import BundleError, RequestError
from webhook.base.schema import Checker
from webhook.base.yamlsource import YamlSyntaxError, parse_documents, parse_single, read_text
from webhook.bundle.model import Bundle
from webhook.engine.decision import Decision
from webhook.engine.enforcement import POINTS, Point
from webhook.engine.request import parse_review
from webhook.engine.review import review
from webhook.engine.synthesize import plural

SUITE_FILE = "tests.yaml"
CASE_KEYS = (
    "name",
    "request",
    "operation",
    "user",
    "namespace",
    "subResource",
    "kind",
    "resource",
    "object",
    "oldObject",
    "dryRun",
    "point",
    "expect",
)
FIXTURES = "fixtures.yaml"
WORLDS = ("own", "example")
"""``world:`` of a suite: the bundle's clusters, tenants and writers, or the example's."""
EXPECT_KEYS = ("allowed", "rules", "messages", "warnings")


@dataclass(frozen=True)
class Expectation:
    """What a test case expects: allowed or not, and which rules, messages and warnings."""

    allowed: bool
    rules: tuple[str, ...] | None = None
    messages: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Case:
    """One test case of a suite: an AdmissionReview and what it expects."""

    suite: str
    name: str
    review: Mapping[str, Any]
    expect: Expectation
    line: int = 0
    world: str = "own"
    """``own`` or ``example``: the world the case is written against (the suite's ``world``)."""
    point: Point | None = None
    """The enforcement point the case is reviewed at (``point:``); None, the default: every
    rule as enforced, so a rule's suite tests its logic and still passes while it is staged."""


@dataclass(frozen=True)
class CaseResult:
    """A case run through review(): its decision and what differs from the expectation."""

    case: Case
    decision: Decision | None
    problems: tuple[str, ...] = field(default=())

    @property
    def passed(self) -> bool:
        return not self.problems


def run_case(case: Case, bundle: Bundle) -> CaseResult:
    """Review the case's request and compare the Decision with what the case expects."""
    try:
        request = parse_review(case.review, require_uid=False)
        decision = review(request, bundle, point=case.point)
    except RequestError as exc:
        return CaseResult(case, None, (f"the request is malformed: {exc}",))
    return CaseResult(case, decision, tuple(_compare(case.expect, decision)))


def _compare(expect: Expectation, decision: Decision) -> list[str]:
    problems = []
    if decision.allowed != expect.allowed:
        verdict = "allowed" if decision.allowed else "denied"
        problems.append(f"expected {'allowed' if expect.allowed else 'denied'}, got {verdict}")
    rules = sorted({v.rule for v in decision.violations})
    if expect.rules is not None and rules != sorted(set(expect.rules)):
        problems.append(f"expected rules {sorted(set(expect.rules))}, got {rules}")
    texts = [v.message for v in decision.violations]
    for pattern in expect.messages:
        if not any(re.search(pattern, t) for t in texts):
            problems.append(f"no violation message matches {pattern!r}; messages: {texts}")
    for pattern in expect.warnings:
        if not any(re.search(pattern, w) for w in decision.warnings):
            problems.append(f"no warning matches {pattern!r}; warnings: {list(decision.warnings)}")
    return problems


def find_suites(root: Path) -> list[Path]:
    """Every suite under a directory (a file is itself); none when ``root`` does not exist."""
    if root.is_dir():
        return sorted(root.rglob(SUITE_FILE))
    return [root] if root.is_file() else []


def load_suite(path: Path) -> list[Case]:
    """The cases of one suite file; raises BundleError (located) when it is malformed."""
    try:
        document = parse_single(read_text(path), str(path))
    except YamlSyntaxError as exc:
        raise BundleError([exc.finding]) from None
    checker = Checker(document)
    checker.mapping((), ("cases", "objects", "users", "world"), required=("cases",))
    world = checker.choice(("world",), WORLDS, default="own")
    fixtures = _fixtures(path)
    objects = {**fixtures.get("objects", {}), **checker.named_mapping(("objects",))}
    users = {**fixtures.get("users", {}), **checker.named_mapping(("users",))}
    raw = checker.get(("cases",))
    if raw is not None and not isinstance(raw, list):
        checker.report(("cases",), "must be a list of cases ({name, request or operation, ...})")
    elif raw == []:
        checker.report(("cases",), "lists no case: a suite must test something")
    cases = []
    for index in range(len(raw) if isinstance(raw, list) else 0):
        case = _case(checker, ("cases", index), path, objects, users)
        if case is not None:
            cases.append(replace(case, world=world or "own"))
    if checker.findings:
        raise BundleError(checker.findings)
    return cases


def _fixtures(suite: Path) -> dict[str, dict[str, Any]]:
    """Named ``objects`` and ``users`` from the nearest ``fixtures.yaml`` at or above the suite;
    raises BundleError (located) when it is malformed."""
    for folder in (suite.parent, *suite.parent.parents):
        file = folder / FIXTURES
        if file.is_file():
            try:
                checker = Checker(parse_single(read_text(file), str(file)))
            except YamlSyntaxError as exc:
                raise BundleError([exc.finding]) from None
            checker.mapping((), ("objects", "users"))
            named = {s: checker.named_mapping((s,)) for s in ("objects", "users")}
            if checker.findings:
                raise BundleError(checker.findings)
            return named
    return {}


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: mappings merge, null deletes, anything else replaces."""
    if not isinstance(patch, Mapping):
        return patch
    result = dict(target) if isinstance(target, Mapping) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _object(checker: Checker, path: tuple[str | int, ...], objects: Mapping[str, Any]) -> Any:
    """An inline object, or ``{from: <fixture>, merge: <merge patch>}``."""
    value = checker.get(path)
    if not isinstance(value, Mapping) or "from" not in value:
        return value
    checker.mapping(path, ("from", "merge"))
    name = value["from"]
    if name not in objects:
        checker.report(
            (*path, "from"),
            f"no fixture named {name!r}; there are {', '.join(sorted(objects)) or 'none'}",
        )
        return None
    return merge_patch(objects[name], value.get("merge") or {})


def _case(
    checker: Checker,
    path: tuple[str | int, ...],
    suite: Path,
    objects: Mapping[str, Any],
    users: Mapping[str, Any],
) -> Case | None:
    raw = checker.mapping(path, CASE_KEYS, required=("name", "expect"))
    user = raw.get("user")
    if isinstance(user, str):
        if user not in users:
            checker.report(
                (*path, "user"),
                f"no user named {user!r}; there are {', '.join(sorted(users)) or 'none'}",
            )
        user = users.get(user)
    raw = {
        **raw,
        "user": user,
        "object": _object(checker, (*path, "object"), objects),
        "oldObject": _object(checker, (*path, "oldObject"), objects),
    }
    name = checker.string((*path, "name")) or "?"
    checker.mapping((*path, "expect"), EXPECT_KEYS, required=("allowed",))
    allowed = checker.boolean((*path, "expect", "allowed"))
    rules = checker.get((*path, "expect", "rules"))
    expect = Expectation(
        allowed=allowed,
        rules=checker.string_list((*path, "expect", "rules")) if rules is not None else None,
        messages=checker.string_list((*path, "expect", "messages"), unique=False),
        warnings=checker.string_list((*path, "expect", "warnings"), unique=False),
    )
    point = cast(Point | None, checker.choice((*path, "point"), POINTS))
    if "request" in raw:
        document = _review_file(checker, (*path, "request"), suite)
    else:
        document = inline_review(raw)
    if document is None:
        return None
    line = checker.document.line(path)
    return Case(str(suite), name, document, expect, line, point=point)


def _review_file(
    checker: Checker, path: tuple[str | int, ...], suite: Path
) -> Mapping[str, Any] | None:
    relative = checker.string(path)
    if relative is None:
        return None
    file = suite.parent / relative
    try:
        text = read_text(file)
        data = (
            json.loads(text) if file.suffix == ".json" else parse_documents(text, str(file))[0].data
        )
    except YamlSyntaxError as exc:
        checker.report(path, f"cannot read {file}: {exc.finding.message}")
        return None
    except (ValueError, IndexError, RecursionError) as exc:
        checker.report(path, f"cannot read {file}: {exc}")
        return None
    return data if isinstance(data, Mapping) else None


def inline_review(case: Mapping[str, Any]) -> dict[str, Any]:
    """The AdmissionReview an inline case describes (uid, kind and resource filled in)."""
    obj, old = case.get("object"), case.get("oldObject")
    sample: Mapping[str, Any] = (
        obj if isinstance(obj, Mapping) else old if isinstance(old, Mapping) else {}
    )
    group, _, version = str(sample.get("apiVersion", "v1")).rpartition("/")
    kind = case.get("kind") or {"group": group, "version": version, "kind": sample.get("kind", "")}
    raw_metadata = sample.get("metadata")
    metadata: Mapping[str, Any] = raw_metadata if isinstance(raw_metadata, Mapping) else {}
    operation = case.get("operation") or (
        "DELETE" if obj is None and old else "UPDATE" if old else "CREATE"
    )
    request: dict[str, Any] = {
        "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, json.dumps(case, sort_keys=True, default=str))),
        "kind": kind,
        "resource": {
            "group": group,
            "version": version,
            "resource": case.get("resource") or plural(str(sample.get("kind", ""))),
        },
        "name": metadata.get("name", ""),
        "namespace": case.get("namespace", metadata.get("namespace", "")),
        "operation": operation,
        "userInfo": case.get("user") or {},
        "object": obj,
        "oldObject": old,
        "dryRun": bool(case.get("dryRun", False)),
    }
    if case.get("subResource"):
        request["subResource"] = case["subResource"]
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}

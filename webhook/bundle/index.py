"""The index of the synced tree: what Git says of the objects a request does not carry.

A decision may rest only on what the writer cannot forge. An OverridePolicy, a FederatedHPA or a
PropagationPolicy acts on other objects: what those objects are, who owns their fields (their
ownership ledgers) and which policy manages them is what the compiled Git tree says, not what
the request says of them. ``fedgate bundle`` reads the rendered tree Argo CD syncs and writes
every object of it (fedgate's and hand-written, templates and Karmada policies) into the
webhook's bundle as ``index.json.gz``; SIGHUP or a rollout reloads it with the rest of the
bundle. Pure: bytes in, an index out.

The index is Git as of the last bundle: an object created since (by Git, or by hand) is not in
it. Rules that need a target's facts deny a tenant's write about a target the index does not
know, and say how to proceed; Git's own writes (the tree itself) are judged on what they carry.
"""

from __future__ import annotations

import gzip
import hashlib
import io
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson

from webhook.base.errors import Finding
from webhook.base.memo import Memo

INDEX_FILES = ("index.json.gz", "index.json")
"""The bundle's index, compressed (in a ConfigMap's binaryData) or not."""
API_VERSION = "fedgate.dev/v1alpha1"
KIND = "TreeIndex"
MAX_INDEX_BYTES = 256 * 1024 * 1024
"""At most this much JSON once decompressed (about 90,000 apps): a bound, not a budget."""
POLICY_API = "policy.karmada.io/v1alpha1"
POLICY_KINDS = frozenset(
    {"PropagationPolicy", "ClusterPropagationPolicy", "OverridePolicy", "ClusterOverridePolicy"}
)
CLUSTER_POLICY_KINDS = frozenset({"ClusterPropagationPolicy", "ClusterOverridePolicy"})

Key = tuple[str, str, str, str]
"""(API group, kind, namespace, name): how the API server keys an object, versions aside."""
T = TypeVar("T")
MEMO_TABLE_BYTES = 4 * 1024 * 1024
"""Each of an index's memo tables is bounded in bytes, since their keys come from requests."""
MEMO_ENTRY_BYTES = 64 * 1024


class IndexProblem(ValueError):
    """The index cannot be read (the bundle that carries it is refused)."""


def group_of(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def key_of(obj: Mapping[str, Any]) -> Key:
    metadata = obj.get("metadata") or {}
    return (
        group_of(str(obj.get("apiVersion", ""))),
        str(obj.get("kind", "")),
        str(metadata.get("namespace") or ""),
        str(metadata.get("name", "")),
    )


def is_policy(obj: Mapping[str, Any]) -> bool:
    return obj.get("apiVersion") == POLICY_API and obj.get("kind") in POLICY_KINDS


@dataclass(frozen=True)
class TreeIndex:
    """Every object of the synced tree, by key and by namespace; built once per bundle."""

    objects: Mapping[Key, Mapping[str, Any]]
    digest: str = ""
    """The first 12 hex digits of the index's sha256, for audit lines and /readyz."""
    _templates: Mapping[str, tuple[Mapping[str, Any], ...]] = field(
        default_factory=dict, compare=False, repr=False
    )
    _policies: Mapping[str, tuple[Mapping[str, Any], ...]] = field(
        default_factory=dict, compare=False, repr=False
    )
    ledgers: Mapping[Key, Mapping[str, Any]] | None = field(default=None, compare=False, repr=False)
    """The objects whose ownership ledgers the index vouches for (Git's, when the index is
    live: ``bundle/live.py``); None: every object of ``objects``."""
    stale: str | None = None
    """Why the index cannot be trusted now (the live watch has been down too long): rules that
    need other objects' facts then deny, saying this; None when it can be."""
    _memo: dict[str, Memo[Hashable, Any]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    @classmethod
    def of(
        cls,
        objects: Iterable[Mapping[str, Any]],
        digest: str = "",
        *,
        ledgers: Mapping[Key, Mapping[str, Any]] | None = None,
        stale: str | None = None,
    ) -> TreeIndex:
        by_key: dict[Key, Mapping[str, Any]] = {}
        templates: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        policies: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        for obj in objects:
            key = key_of(obj)
            by_key[key] = obj
            if is_policy(obj):
                scope = "" if obj.get("kind") in CLUSTER_POLICY_KINDS else key[2]
                policies[scope].append(obj)
            else:
                templates[key[2]].append(obj)
        return cls(
            by_key,
            digest,
            {ns: tuple(found) for ns, found in templates.items()},
            {ns: tuple(found) for ns, found in policies.items()},
            ledgers,
            stale,
        )

    def get(self, key: Key) -> Mapping[str, Any] | None:
        return self.objects.get(key)

    def memo(
        self, table: str, key: Hashable, compute: Callable[[], T], weight: Callable[[T], int]
    ) -> T:
        """``compute()`` once per key for this index: for pure functions of the index and a
        key that recurs across requests (the templates a policy's selectors match). The live
        index is a new ``TreeIndex`` at every change it sees, so nothing outlives the objects
        it was worked out from. Bounded like ``Bundle.memo``, each value charged its
        ``weight`` too (a policy selecting every template of a large namespace keeps a
        reference to each); a race between threads computes a value twice, harmlessly."""
        memo = self._memo.get(table)
        if memo is None:
            memo = self._memo.setdefault(table, Memo(MEMO_TABLE_BYTES, MEMO_ENTRY_BYTES))
        return memo.get(key, compute, weight)  # type: ignore[no-any-return]

    def ledgered(self, key: Key) -> Mapping[str, Any] | None:
        """The object whose ownership ledger decides who owns ``key``'s fields: Git's."""
        return (self.objects if self.ledgers is None else self.ledgers).get(key)

    def templates(self, namespace: str | None) -> tuple[Mapping[str, Any], ...]:
        """The resource templates of one namespace; of every namespace for None."""
        if namespace is None:
            return tuple(t for found in self._templates.values() for t in found)
        return self._templates.get(namespace, ())

    def policies(self, namespace: str) -> tuple[Mapping[str, Any], ...]:
        """The Karmada policies that can act on a template of ``namespace``: those of the
        namespace and the cluster-wide ones."""
        return (*self._policies.get(namespace, ()), *self._policies.get("", ()))


def build_index(objects: Iterable[Mapping[str, Any]], *, indent: bool = False) -> bytes:
    """The index document of ``objects`` (canonical JSON: sorted keys, objects by key), as
    ``fedgate bundle`` writes it (gzip it for a ConfigMap); ``indent`` for a file people read."""
    unique = {key_of(o): o for o in objects}
    document = {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "objects": [unique[k] for k in sorted(unique)],
    }
    option = orjson.OPT_SORT_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    return orjson.dumps(document, option=option) + (b"\n" if indent else b"")


def gzipped(data: bytes) -> bytes:
    """Deterministic gzip (no name, no time): the same index gives the same bytes."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def _decompressed(data: bytes, limit: int) -> bytes:
    if not data.startswith(b"\x1f\x8b"):
        return data
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            out = stream.read(limit + 1)
    except (OSError, EOFError) as exc:
        raise IndexProblem(f"not a gzip stream: {exc}") from None
    if len(out) > limit:
        raise IndexProblem(f"larger than {limit} bytes once decompressed")
    return out


def _object_problem(obj: Any) -> str | None:
    if not isinstance(obj, dict):
        return "is not an object"
    metadata = obj.get("metadata")
    if not isinstance(obj.get("apiVersion"), str) or not isinstance(obj.get("kind"), str):
        return "has no string apiVersion and kind"
    if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str):
        return "has no metadata.name"
    namespace = metadata.get("namespace")
    if namespace is not None and not isinstance(namespace, str):
        return "has a metadata.namespace that is not a string"
    return None


def parse_index(
    data: bytes, where: str, *, limit: int = MAX_INDEX_BYTES
) -> tuple[TreeIndex | None, list[Finding]]:
    """The index in ``data`` (gzip or JSON, at most ``limit`` bytes decompressed), or the
    findings that refuse it."""
    try:
        document = orjson.loads(_decompressed(data, limit))
    except IndexProblem as exc:
        return None, [Finding(where, 0, "", str(exc))]
    except orjson.JSONDecodeError as exc:
        return None, [Finding(where, 0, "", f"not JSON: {exc}")]
    if not isinstance(document, dict) or (document.get("apiVersion"), document.get("kind")) != (
        API_VERSION,
        KIND,
    ):
        return None, [Finding(where, 0, "", f"not a {API_VERSION} {KIND}")]
    objects = document.get("objects")
    if not isinstance(objects, list):
        return None, [Finding(where, 0, "objects", "must be a list of objects")]
    findings = [
        Finding(where, 0, f"objects[{i}]", problem)
        for i, obj in enumerate(objects)
        if (problem := _object_problem(obj)) is not None
    ]
    if findings:
        return None, findings
    digest = hashlib.sha256(data).hexdigest()[:12]
    return TreeIndex.of(objects, digest), []

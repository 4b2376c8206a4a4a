"""``fedgate bundle``: the webhook's policy bundle as the ConfigMap its Deployment mounts, with
the index of the synced tree.

The webhook judges a write that acts on other objects (an OverridePolicy, a FederatedHPA, a
PropagationPolicy) by what Git says of them: the index (``webhook/bundle/index.py``) holds every
object of the rendered tree that an Argo CD Application of the bundle syncs, fedgate's and
hand-written. Run it after each change that reaches the tree (in the pipeline that deploys the
webhook), apply the ConfigMap, and restart or SIGHUP the webhook.
"""

from __future__ import annotations

import argparse
import base64
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from compiler.argocd.manifests import read_tree
from compiler.argocd.sync import ArgoCDTree
from compiler.commands.common import load_policy_bundle, shown
from compiler.compile.canonical import dump
from compiler.compile.write import read_manifest
from compiler.output import Output
from compiler.policies import repository_root
from compiler.render.argocd import FOLDER as ARGOCD_FOLDER
from webhook.bundle.index import build_index, gzipped
from webhook.bundle.load import FLAT_SEPARATOR, read_source
from webhook.bundle.model import Bundle
from webhook.errors import FindingsError, UsageError

NAME = "bundle"
HELP = "write the webhook's bundle ConfigMap: the policies and the index of the synced tree"
DESCRIPTION = """\
Write the policy bundle as the ConfigMap the webhook Deployment mounts (ConfigMap keys cannot
hold "/": rules/<id>/rule.yaml becomes rules__<id>__rule.yaml), with the index of the rendered
tree as binaryData index.json.gz: every object an Argo CD Application of the bundle syncs from
it, which the webhook reads to judge writes about other objects (what an OverridePolicy does
to its targets on each member, whose replicas a FederatedHPA may scale, which templates a
PropagationPolicy would take). The bundle is validated first; nothing is written on error.

examples:
  fedgate bundle --out fedgate-policies.yaml           policies/ and rendered/ of the repository
  fedgate bundle --tree deploy/rendered --out -        another tree, to stdout
  fedgate bundle --no-index --out policies.yaml        the policies only
"""
CONFIGMAP = "fedgate-policies"
NAMESPACE = "fedgate-system"
INDEX_KEY = "index.json.gz"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out", metavar="FILE", default="-", help="where to write the ConfigMap (default: -)"
    )
    parser.add_argument(
        "--tree",
        type=Path,
        metavar="DIR",
        help="the rendered tree Argo CD syncs (default: rendered/ of the repository)",
    )
    parser.add_argument("--no-index", action="store_true", help="leave the index out")
    parser.add_argument("--name", default=CONFIGMAP, help=f"the ConfigMap (default {CONFIGMAP})")
    parser.add_argument(
        "--namespace", default=NAMESPACE, help=f"its namespace (default {NAMESPACE})"
    )


def synced_objects(tree: Path, bundle: Bundle) -> tuple[list[Mapping[str, Any]], int]:
    """Every object of ``tree`` an Application of the bundle syncs to the Karmada API server
    (all of them without argocd.yaml), and how many manifests no Application syncs."""
    manifests = read_tree(tree)
    if manifests.findings:
        raise FindingsError(manifests.findings)
    pieces = [m for m in manifests.manifests if m.file.startswith(f"{ARGOCD_FOLDER}/")]
    # Only fedgate's own Applications say what is synced: one written by hand into the Argo
    # CD folder is not one Argo CD reads (the root Application's include names fedgate's).
    written = read_manifest(tree)
    applications = ArgoCDTree.of(m.object for m in pieces if not written or m.file in written)
    settings = bundle.argocd
    synced, unsynced = [], 0
    for manifest in manifests.manifests:
        if manifest in pieces:
            continue
        if settings is None or _synced(applications, f"{settings.path}/{manifest.file}"):
            synced.append(manifest.object)
        else:
            unsynced += 1
    return synced, unsynced


def _synced(applications: ArgoCDTree, repo_path: str) -> bool:
    return bool(applications.syncing(repo_path))


def configmap(
    policies: Path,
    index: bytes | None,
    *,
    name: str = CONFIGMAP,
    namespace: str = NAMESPACE,
) -> bytes:
    """The ConfigMap of the bundle in ``policies`` (its text files as data) and ``index``."""
    source = read_source(policies, index=False)
    document: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {
                "app.kubernetes.io/name": "fedgate-webhook",
                "app.kubernetes.io/component": "policy-bundle",
            },
        },
        "data": {n.replace("/", FLAT_SEPARATOR): t for n, t in sorted(source.files.items())},
    }
    if index is not None:
        document["binaryData"] = {INDEX_KEY: base64.b64encode(gzipped(index)).decode()}
    return dump(document, header=f"Generated by fedgate bundle from {policies.name}/. Do not edit.")


def index_of(tree: Path, bundle: Bundle) -> tuple[bytes, int, int]:
    """The index document of ``tree``, how many objects it holds, how many it left out."""
    objects, unsynced = synced_objects(tree, bundle)
    return build_index(objects), len(objects), unsynced


def run(args: argparse.Namespace, out: Output) -> int:
    bundle = load_policy_bundle(args)  # validates the bundle: nothing is written on error
    index = None
    if not args.no_index:
        root = repository_root(Path.cwd()) or Path.cwd()
        tree = args.tree or shown(root / "rendered")
        if not tree.is_dir():
            raise UsageError(
                f"{tree} is not a directory: give the rendered tree with --tree, or --no-index"
            )
        index, count, unsynced = index_of(tree, bundle)
        out.error(
            f"fedgate bundle: {count} objects of {tree}/ in the index"
            + (f" ({unsynced} no Application syncs left out)" if unsynced else "")
        )
    data = configmap(args.policies, index, name=args.name, namespace=args.namespace)
    if args.out == "-":
        out.stdout.write(data.decode())
    else:
        Path(args.out).write_bytes(data)
    return 0

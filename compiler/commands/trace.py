"""``fedgate trace NAMESPACE/NAME``: the live chain of one template against its plan."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from compiler.argocd.manifests import Manifest, read_tree
from compiler.commands.common import add_backend_argument, load_policy_bundle, shown
from compiler.output import Output
from compiler.plan.livechain import binding_name, chain, claim, render
from compiler.plan.tree import autoscaler_bounds, plan_template, policies_of, scaled
from compiler.policies import repository_root
from webhook.bundle.live import WATCHED, lean
from webhook.bundle.model import Bundle
from webhook.engine.synthesize import plural
from webhook.errors import UsageError
from webhook.karmada.propagation import TemplatePlan
from webhook.kubeapi import ApiError, ApiServer, NotFound, from_kubeconfig

NAME = "trace"
HELP = "the live chain of one template (policy, binding, works, members) against its plan"
DESCRIPTION = """\
Follow one resource template through the live federation and line it up with what `fedgate
plan` predicts: the policy that claimed it (Karmada's permanent-id label), its ResourceBinding
(the clusters and replicas the scheduler chose), the Work in each cluster's execution namespace
(applied or not), and each member's own object (replicas, ready replicas, images), read through
Karmada's cluster proxy. Every place where the federation differs from the plan is marked: a
scheduler's other choice, a Work not applied, a member object edited by hand.

The plan is that of the rendered tree (--tree, default rendered/ of the repository) when the
template is in it, else of the live template and the live policies. Needs a kubeconfig of the
Karmada API server (--kubeconfig, else $KUBECONFIG, else ~/.kube/config) allowed to read the
template, policies, bindings and works, and the clusters' proxy subresource.

Exit 0 when the chain is as planned, 1 when something differs (or cannot be read).

examples:
  fedgate trace platform-demo/demo-http --kubeconfig karmada.config
  fedgate trace payments/checkout --kind Deployment --output json
"""

KINDS = {
    "Deployment": "apps/v1",
    "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "ReplicaSet": "apps/v1",
    "Job": "batch/v1",
    "CronJob": "batch/v1",
    "Pod": "v1",
    "Service": "v1",
    "ConfigMap": "v1",
    "Secret": "v1",
}
"""The apiVersion of each kind --kind takes without --api-version."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="NAMESPACE/NAME", help="the template to follow")
    parser.add_argument("--kind", default="Deployment", help="the template's kind (Deployment)")
    parser.add_argument(
        "--api-version", metavar="GROUP/VERSION", help="default: the kind's usual one"
    )
    parser.add_argument(
        "--kubeconfig",
        type=Path,
        metavar="FILE",
        help="the Karmada API server's kubeconfig (default: $KUBECONFIG, else ~/.kube/config)",
    )
    parser.add_argument("--context", metavar="NAME", help="a context of the kubeconfig")
    parser.add_argument(
        "--tree",
        type=Path,
        metavar="DIR",
        help="the rendered tree whose plan is compared (default: rendered/ of the repository)",
    )
    add_backend_argument(parser)


def _path(api_version: str, kind: str, namespace: str, name: str) -> str:
    group, _, version = api_version.rpartition("/")
    base = f"/apis/{group}/{version}" if group else f"/api/{version}"
    where = f"/namespaces/{namespace}" if namespace else ""
    return f"{base}{where}/{plural(kind)}/{name}"


def _get(api: ApiServer, path: str) -> dict[str, Any] | None:
    try:
        return api.get(path)
    except NotFound:
        return None


def _items(api: ApiServer, path: str) -> list[dict[str, Any]]:
    """The objects of a collection; none when its namespace does not exist."""
    try:
        return api.list(path)[0]
    except NotFound:
        return []


def _policy_path(kind: str, namespace: str, name: str) -> str:
    return _path("policy.karmada.io/v1alpha1", kind, namespace, name)


def _kubeconfig(args: argparse.Namespace) -> Path:
    if args.kubeconfig is not None:
        return Path(args.kubeconfig)
    named = os.environ.get("KUBECONFIG", "").split(os.pathsep)[0]
    return Path(named) if named else Path.home() / ".kube" / "config"


def _work_for(works: list[dict[str, Any]], identity: tuple[str, str, str, str]) -> dict[str, Any]:
    """The Work whose manifests carry the template (kind, namespace, name)."""
    _, kind, namespace, name = identity
    for work in works:
        manifests = ((work.get("spec") or {}).get("workload") or {}).get("manifests") or []
        for manifest in manifests:
            metadata = manifest.get("metadata") or {}
            if (
                manifest.get("kind") == kind
                and metadata.get("name") == name
                and (metadata.get("namespace") or "") == namespace
            ):
                return work
    return {}


def _planned(
    args: argparse.Namespace, api: ApiServer, template: dict[str, Any], bundle: Bundle
) -> tuple[TemplatePlan, str]:
    """The plan of the template, and where it comes from (Git's tree, or the live objects)."""
    identity = Manifest("live", 0, template).identity
    root = repository_root(Path.cwd()) or Path.cwd()
    tree = args.tree if args.tree is not None else root / "rendered"
    if args.tree is not None and not tree.is_dir():
        raise UsageError(f"--tree {tree}: no such directory")
    if tree.is_dir():
        manifests = read_tree(tree).manifests
        found = [m for m in manifests if m.identity[1:] == identity[1:]]
        if found:
            policies = policies_of(m.object for m in manifests)
            planned = scaled(found[0], autoscaler_bounds(manifests))
            return plan_template(planned, policies, bundle).plan, f"the tree {shown(tree)}"
    namespace = identity[2]
    live = [
        lean(obj, watched)  # a list's items carry no kind: the collection says it
        for watched in WATCHED
        if watched.group == "policy.karmada.io"
        for obj in _items(api, watched.path_in(namespace))
    ]
    policies = policies_of(live)
    return plan_template(Manifest("live", 0, template), policies, bundle).plan, "the live policies"


def run(args: argparse.Namespace, out: Output) -> int:
    namespace, slash, name = str(args.target).partition("/")
    if not slash or not namespace or not name or "/" in name:
        raise UsageError(f"{args.target}: give NAMESPACE/NAME (e.g. platform-demo/demo-http)")
    api_version = args.api_version or KINDS.get(args.kind)
    if api_version is None:
        raise UsageError(f"--kind {args.kind}: give its --api-version (e.g. apps/v1)")
    bundle = load_policy_bundle(args)
    api = ApiServer(from_kubeconfig(_kubeconfig(args), args.context))
    resource = _path(api_version, args.kind, namespace, name)
    try:
        template = _get(api, resource)
        if template is None:
            raise UsageError(f"{args.kind} {namespace}/{name}: not on the Karmada API server")
        claimed = claim(template)
        policy = (
            _get(api, _policy_path(*claimed[:3])) if claimed is not None and claimed[2] else None
        )
        binding = _get(
            api,
            _path(
                "work.karmada.io/v1alpha2",
                "ResourceBinding",
                namespace,
                binding_name(args.kind, name),
            ),
        )
        plan, source = _planned(args, api, template, bundle)
        scheduled = [
            c.get("name")
            for c in ((binding or {}).get("spec") or {}).get("clusters") or []
            if isinstance(c, Mapping)
        ]
        clusters = sorted({*(str(c) for c in scheduled if c), *plan.copies, *bundle.clusters})
        identity = Manifest("live", 0, template).identity
        works: dict[str, dict[str, Any]] = {}
        live: dict[str, dict[str, Any]] = {}
        unreachable: dict[str, str] = {}
        for cluster in clusters:
            namespace_of_works = f"karmada-es-{cluster}"
            found_works = _items(
                api, f"/apis/work.karmada.io/v1alpha1/namespaces/{namespace_of_works}/works"
            )
            work = _work_for(found_works, identity)
            if work:
                works[cluster] = work
            proxy = f"/apis/cluster.karmada.io/v1alpha1/clusters/{cluster}/proxy{resource}"
            try:
                member = _get(api, proxy)
            except ApiError as exc:
                unreachable[cluster] = str(exc)
                continue
            if member is not None:
                live[cluster] = member
    except ApiError as exc:
        raise UsageError(f"the Karmada API server: {exc}") from None
    result = chain(
        template,
        policy=policy,
        binding=binding,
        works=works,
        live=live,
        plan=plan,
        unreachable=unreachable,
    )
    if out.format == "json":
        out.json({**result.as_json(), "planFrom": source})
    else:
        for line in render(result):
            out.line(line)
        out.line(f"(plan from {source})")
    return 1 if result.differences else 0

"""The examples against a live Karmada federation, in each identity layout of its components.

In order, against one federation per layout: Argo CD's sync of the compiled examples (and a
re-sync, and a change) is admitted; Karmada derives a ResourceBinding and Works for every
template and each member runs what `fedgate plan` predicts; a tenant's forbidden writes are refused
with fedgate's message and its allowed ones pass, through kubectl as typed, with --dry-run=server
and with server-side apply; and over the whole run no write of a control-plane component was
denied.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import shutil
import ssl
import subprocess
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trustme
import yaml

from tests.deploy.helm import Unavailable, helm_binary
from tests.e2e import controlplane
from tests.e2e.conftest import ARGOCD, ARGOCD_GROUPS, Federation, eventually
from tests.e2e.identities import ALICE, TEAM_A, control_plane_denials
from tests.e2e.rollouts import finished
from tests.e2e.sync import FEDGATE, TENANT_FOLDERS, Synced, argocd_sync, compile_apps
from tests.webhook.exception_files import LEGACY_EXCEPTION
from tests.webhook.livecase import hand_made, policy
from webhook.suites import load_suite

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
REQUESTS = REPO / "examples" / "requests"
POLICY_KINDS = {"PropagationPolicy", "OverridePolicy", "FederatedHPA", "CronFederatedHPA"}
DENIED = 'admission webhook "validate.fedgate.dev" denied the request'


def _templates(rendered: Path) -> list[dict[str, Any]]:
    found = []
    for folder in TENANT_FOLDERS:
        for path in sorted((rendered / folder).rglob("*.yaml")):
            for document in yaml.safe_load_all(path.read_text()):
                if document and document["kind"] not in POLICY_KINDS:
                    found.append(document)
    return found


# --- 1. Argo CD's sync -------------------------------------------------------------------------


def test_argocd_sync_of_the_examples_is_admitted(synced: Synced) -> None:
    for step in (synced.first, synced.resync, synced.change):
        assert step.returncode == 0, step.stderr
        assert DENIED not in step.stderr
    created = [line for line in synced.first.stdout.splitlines() if line.endswith(" created")]
    assert len(created) == len(list(synced.rendered.glob("[!a]*/*/*.yaml"))), synced.first.stdout
    assert "deployment.apps/checkout configured" in synced.change.stdout


def test_the_change_reaches_the_template(federation: Federation, synced: Synced) -> None:
    live = federation.json("get", "deployment", "checkout", "-n", "payments")
    images = [c["image"] for c in live["spec"]["template"]["spec"]["containers"]]
    assert images == ["registry.example.com/payments/checkout:1.8.1"]


# --- 2. Karmada derives a binding and works for every template --------------------------------


def _binding_name(template: dict[str, Any]) -> str:
    return f"{template['metadata']['name']}-{template['kind'].lower()}"


def _scheduled(federation: Federation, namespace: str, name: str) -> list[str]:
    result = federation.kubectl("get", "resourcebinding", name, "-n", namespace, "-o", "json")
    if result.returncode != 0:
        return []
    return [c["name"] for c in json.loads(result.stdout)["spec"].get("clusters", [])]


def _work_applied(federation: Federation, cluster: str, template: dict[str, Any]) -> bool:
    """Whether a Work in the cluster's execution namespace carries the template, Applied."""
    meta = template["metadata"]
    for work in federation.json("get", "works", "-n", f"karmada-es-{cluster}")["items"]:
        if any(
            m["kind"] == template["kind"]
            and m["metadata"]["name"] == meta["name"]
            and m["metadata"].get("namespace") == meta["namespace"]
            for m in work["spec"]["workload"]["manifests"]
        ):
            conditions = work.get("status", {}).get("conditions", [])
            return any(c["type"] == "Applied" and c["status"] == "True" for c in conditions)
    return False


def test_every_template_gets_its_binding_and_works(federation: Federation, synced: Synced) -> None:
    for template in _templates(synced.rendered):
        namespace, name = template["metadata"]["namespace"], _binding_name(template)
        clusters = eventually(
            f"ResourceBinding {namespace}/{name} scheduled",
            partial(_scheduled, federation, namespace, name),
        )
        for cluster in clusters:
            eventually(
                f"{template['kind']} {namespace}/{name} applied to {cluster}",
                partial(_work_applied, federation, cluster, template),
            )


# --- 3. each member runs what fedgate plan predicts ------------------------------------------


def _containers(deployment: dict[str, Any]) -> dict[str, dict[str, Any]]:
    spec = deployment["spec"]["template"]["spec"]
    return {
        c["name"]: {"image": c["image"], "env": c.get("env", []), "args": c.get("args", [])}
        for c in spec.get("containers", []) + spec.get("initContainers", [])
    }


def _fedgate_json(
    *args: str, policies: Path = REPO / "policies", codes: tuple[int, ...] = (0, 1)
) -> dict[str, Any]:
    """``fedgate ARGS --output json`` with ``policies``: the document it prints; an exit not in
    ``codes`` (0 or 1, findings, unless told) fails the test with its stderr."""
    result = subprocess.run(
        [FEDGATE, *args, "--output", "json", "--policies", str(policies)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode in codes, result.stderr
    return dict(json.loads(result.stdout))


def _plan(*args: str) -> dict[str, Any]:
    return _fedgate_json("plan", *args, codes=(0,))


def _differences(federation: Federation, planned: dict[str, Any]) -> list[str]:
    """How the members' Deployment differs from one planned app or template: replicas per
    cluster (any of the plan's tie outcomes), containers' image, env and args, and the planned
    labels and annotations (Karmada adds its own)."""
    where = f"{planned['namespace']}/{planned['name']}"
    placements = [planned["placement"], *planned["placementAlternatives"]]
    live: dict[str, Any] = {}
    for cluster in federation.members:
        got = federation.kubectl(
            "get",
            "deployment",
            planned["name"],
            "-n",
            planned["namespace"],
            "-o",
            "json",
            member=cluster,
        )
        if got.returncode == 0:
            live[cluster] = json.loads(got.stdout)
    differences = []
    replicas = {cluster: obj["spec"].get("replicas") for cluster, obj in live.items()}
    if replicas not in placements:
        differences.append(f"{where}: replicas {replicas}, plan {placements}")
    for cluster, predicted in planned["clusters"].items():
        if cluster not in live:
            differences.append(f"{where}: not in {cluster}")
            continue
        if _containers(live[cluster]) != _containers(predicted):
            differences.append(
                f"{where} in {cluster}: containers {_containers(live[cluster])},"
                f" plan {_containers(predicted)}"
            )
        for part in ("labels", "annotations"):
            want = predicted["metadata"].get(part) or {}
            have = live[cluster]["metadata"].get(part) or {}
            missing = {k: v for k, v in want.items() if have.get(k) != v}
            if missing:
                differences.append(f"{where} in {cluster}: {part} {missing} not as planned")
    return differences


def _settled(federation: Federation, planned: list[dict[str, Any]]) -> list[str]:
    """The differences once Karmada has had up to a minute to converge."""
    deadline = time.monotonic() + 60
    while True:
        differences = [d for p in planned for d in _differences(federation, p)]
        if not differences or time.monotonic() > deadline:
            return differences
        time.sleep(2)


def test_members_run_what_plan_predicts_for_each_app(
    federation: Federation, synced: Synced
) -> None:
    apps = _plan(
        "--all", "--apps", str(synced.rendered.parent / "apps"), "--out", str(synced.rendered)
    )["apps"]
    assert {a["name"] for a in apps} >= {"checkout", "demo-http", "web-frontend"}
    differences = _settled(federation, apps)
    assert not differences, "\n".join(differences)


def _tree_deployments(synced: Synced) -> list[dict[str, Any]]:
    templates = _plan("--tree", str(synced.rendered))["templates"]
    return [t for t in templates if t["namespace"] in TENANT_FOLDERS and t["kind"] == "Deployment"]


AUTOSCALED = {"web-frontend"}  # the examples' FederatedHPA target


def test_members_run_what_plan_tree_predicts(federation: Federation, synced: Synced) -> None:
    planned = [t for t in _tree_deployments(synced) if t["name"] not in AUTOSCALED]
    assert len(planned) >= 5
    differences = _settled(federation, planned)
    assert not differences, "\n".join(differences)


def test_plan_tree_of_a_federatedhpa_target(federation: Federation, synced: Synced) -> None:
    """plan --tree divided the template's replicas (1 by default) where Karmada's FederatedHPA
    controller first raises them to minReplicas (federatedhpa_controller.go: 'Current number of
    replicas below Spec.MinReplicas'); it now sets them as the controller does."""
    planned = [t for t in _tree_deployments(synced) if t["name"] in AUTOSCALED]
    assert planned
    differences = [d for p in planned for d in _differences(federation, p)]
    assert not differences, "\n".join(differences)


# --- 4. a tenant through kubectl ------------------------------------------------------------

CASES = {case.name: case for case in load_suite(REQUESTS / "tests.yaml")}


def _request(name: str) -> dict[str, Any]:
    return dict(json.loads((REQUESTS / name).read_text())["request"])


def _object(request: dict[str, Any]) -> str:
    obj = dict(request["object"])
    metadata = {
        k: v
        for k, v in obj["metadata"].items()
        if k not in {"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"}
    }
    return json.dumps({**obj, "metadata": metadata})


def _as(request: dict[str, Any]) -> dict[str, Any]:
    groups = tuple(g for g in request["userInfo"].get("groups", []) if g != "system:authenticated")
    return {"user": request["userInfo"]["username"], "groups": groups}


MODES = {"typed": (), "dry-run=server": ("--dry-run=server",)}


def _refused(result: subprocess.CompletedProcess[str], rules: tuple[str, ...]) -> None:
    assert result.returncode != 0, result.stdout
    assert DENIED in result.stderr, result.stderr
    for rule in rules:
        assert f"[{rule}]" in result.stderr, result.stderr


def _admitted(result: subprocess.CompletedProcess[str]) -> None:
    # A create of a name the sync already made passes admission and then fails in storage:
    # admission runs first, so AlreadyExists means fedgate admitted it.
    assert (
        result.returncode == 0
        or "AlreadyExists" in result.stderr
        or ("already exists" in result.stderr)
    ), result.stderr
    assert DENIED not in result.stderr


def _rules(case_name: str) -> tuple[str, ...]:
    return tuple(CASES[case_name].expect.rules or ())


@pytest.mark.parametrize("mode", list(MODES))
def test_tenant_edit_of_a_git_owned_field_is_refused(
    federation: Federation, synced: Synced, mode: str
) -> None:
    patch = {"spec": {"replicas": 7}}
    result = federation.kubectl(
        "patch",
        "deployment",
        "demo-http",
        "-n",
        "platform-demo",
        "--type=merge",
        "-p",
        json.dumps(patch),
        *MODES[mode],
        user=ALICE,
        groups=TEAM_A,
    )
    _refused(result, _rules("deployment edit by tenant denied"))


def test_tenant_server_side_apply_of_a_git_owned_field_is_refused(
    federation: Federation, synced: Synced
) -> None:
    live = federation.json("get", "deployment", "demo-http", "-n", "platform-demo")
    applied = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "demo-http", "namespace": "platform-demo"},
        "spec": {
            "replicas": (live["spec"]["replicas"] or 0) + 3,
            "selector": live["spec"]["selector"],
            "template": live["spec"]["template"],
        },
    }
    for extra in ((), ("--dry-run=server",)):
        result = federation.kubectl(
            "apply",
            "--server-side",
            "--force-conflicts",
            "--field-manager=alice",
            "-f",
            "-",
            *extra,
            stdin=json.dumps(applied),
            user=ALICE,
            groups=TEAM_A,
        )
        _refused(result, _rules("deployment edit by tenant denied"))


@pytest.mark.parametrize("mode", list(MODES))
def test_tenant_delete_of_a_git_owned_deployment_is_refused(
    federation: Federation, synced: Synced, mode: str
) -> None:
    result = federation.kubectl(
        "delete",
        "deployment",
        "demo-http",
        "-n",
        "platform-demo",
        "--wait=false",
        *MODES[mode],
        user=ALICE,
        groups=TEAM_A,
    )
    _refused(result, _rules("deployment delete by tenant denied"))
    assert (
        federation.kubectl("get", "deployment", "demo-http", "-n", "platform-demo").returncode == 0
    )


@pytest.mark.parametrize("mode", list(MODES))
def test_tenant_scale_of_an_autoscaled_app_is_refused(
    federation: Federation, synced: Synced, mode: str
) -> None:
    result = federation.kubectl(
        "scale",
        "deployment",
        "web-frontend",
        "-n",
        "platform-demo",
        "--replicas=9",
        *MODES[mode],
        user=ALICE,
        groups=TEAM_A,
    )
    _refused(result, _rules("scale by tenant denied"))


REFUSED_CREATES = {
    "overridepolicy foreign registry denied": "overridepolicy-foreign-registry-denied.json",
    "propagationpolicy team a on cluster c denied": (
        "propagationpolicy-team-a-on-cluster-c-denied.json"
    ),
}
ADMITTED_CREATES = {
    "overridepolicy create allowed": "overridepolicy-create-allowed.json",
    "propagationpolicy create allowed": "propagationpolicy-create-allowed.json",
}


def _case_named(file_name: str) -> str:
    """examples/requests/tests.yaml names each case after its file."""
    return file_name.removesuffix(".json").replace("-", " ")


@pytest.mark.parametrize("mode", [*MODES, "server-side"])
@pytest.mark.parametrize("file_name", [*REFUSED_CREATES.values(), *ADMITTED_CREATES.values()])
def test_policy_writes_of_the_example_requests(
    federation: Federation, synced: Synced, file_name: str, mode: str
) -> None:
    request = _request(file_name)
    if mode == "server-side":
        args: tuple[str, ...] = ("apply", "--server-side", "--force-conflicts", "-f", "-")
        if file_name in ADMITTED_CREATES.values():
            args += ("--dry-run=server",)  # the synced policy stays as git has it
    else:
        args = ("create", "-f", "-", *MODES[mode])
    if mode == "typed" and file_name in ADMITTED_CREATES.values():
        args = ("create", "-f", "-", "--dry-run=server")  # the name is the synced policy's
    result = federation.kubectl(*args, stdin=_object(request), **_as(request))
    if file_name in REFUSED_CREATES.values():
        _refused(result, tuple(CASES[_case_named(file_name)].expect.rules or ()))
    else:
        _admitted(result)


# --- 5. faults ------------------------------------------------------------------------------


# --- the live index: what fedgate knows is what the Karmada API server holds --------------------


def _fedgate_metrics(federation: Federation) -> str:
    url = federation.env["webhook"]["url"].replace("/validate", "/metrics")
    host, _, port = url.removeprefix("https://").partition("/")[0].partition(":")
    context = ssl.create_default_context(cafile=str(federation.directory / "pki" / "ca.crt"))
    connection = http.client.HTTPSConnection(host, int(port), context=context, timeout=5)
    try:
        connection.request("GET", "/metrics")
        return connection.getresponse().read().decode()
    finally:
        connection.close()


def test_the_live_index_is_ready_with_what_the_api_server_holds(
    federation: Federation, synced: Synced
) -> None:
    """fedgate serve --kubeconfig (the harness's, as the user live-index-rbac.yaml binds):
    every kind listed, the synced policies held."""
    metrics = _fedgate_metrics(federation)
    assert "fedgate_index_waiting 0.0" in metrics, metrics
    assert "fedgate_index_stale 0.0" in metrics, metrics
    held = [line for line in metrics.splitlines() if line.startswith("fedgate_index_objects{")]
    assert any('kind="PropagationPolicy"' in line and not line.endswith(" 0.0") for line in held)


def test_a_policy_made_by_hand_is_known_to_the_webhook_within_2_s(
    federation: Federation, synced: Synced
) -> None:
    """alice makes a Deployment and a PropagationPolicy for it with kubectl (not in Git, so
    not in the bundle's index); a second policy of hers for the same Deployment is refused by
    tenancy.takeover, naming the first, within 2 s of the first's admission, no restart."""
    as_alice = partial(federation.kubectl, user=ALICE, groups=TEAM_A)
    first, second = policy("by-hand", "hand-made"), policy("by-hand-too", "hand-made")
    try:
        made = as_alice("create", "-f", "-", stdin=json.dumps(hand_made("hand-made")))
        assert made.returncode == 0, made.stderr
        before = as_alice("create", "--dry-run=server", "-f", "-", stdin=json.dumps(second))
        _admitted(before)  # nothing propagates hand-made yet
        created = as_alice("create", "-f", "-", stdin=json.dumps(first))
        assert created.returncode == 0, created.stderr
        admitted_at = time.monotonic()
        while True:
            result = as_alice("create", "--dry-run=server", "-f", "-", stdin=json.dumps(second))
            elapsed = time.monotonic() - admitted_at
            if result.returncode != 0 or elapsed > 10:
                break
        _refused(result, ("tenancy.takeover",))
        assert "PropagationPolicy platform-demo/by-hand (made outside Git) propagates" in (
            result.stderr
        )
        assert elapsed <= 2.0, f"known after {elapsed:.1f} s"
    finally:  # the failover tests after this one compare every binding: leave none behind
        for kind, name in (("propagationpolicy", "by-hand"), ("deployment", "hand-made")):
            gone = as_alice("delete", kind, name, "-n", "platform-demo", "--ignore-not-found")
            assert gone.returncode == 0, gone.stderr


ANNOTATION_DENIED = 'admission webhook "conflict-resolution.fedgate.dev" denied the request'


def test_a_tenant_s_secret_may_not_overwrite_a_member_s_by_its_annotation(
    federation: Federation, synced: Synced
) -> None:
    """A Secret (a kind fedgate's main entry is not registered for) carrying
    work.karmada.io/conflict-resolution: overwrite, which Karmada prefers to its policy's
    conflictResolution, is denied by the annotation entry; the same Secret without it is
    admitted and never reaches fedgate; annotating it afterwards is denied too."""
    as_alice = partial(federation.kubectl, user=ALICE, groups=TEAM_A)
    name = "annotated-credentials"

    def secret(annotations: dict[str, str]) -> str:
        metadata = {"name": name, "namespace": "platform-demo", "annotations": annotations}
        return json.dumps(
            {"apiVersion": "v1", "kind": "Secret", "metadata": metadata, "data": {"k": "dg=="}}
        )

    try:
        taken = as_alice(
            "create", "-f", "-", stdin=secret({"work.karmada.io/conflict-resolution": "overwrite"})
        )
        assert taken.returncode != 0 and ANNOTATION_DENIED in taken.stderr, taken.stderr
        assert "[tenancy.conflict-overwrite]" in taken.stderr, taken.stderr
        plain = as_alice("create", "-f", "-", stdin=secret({"note": "mine"}))
        assert plain.returncode == 0, plain.stderr

        def records() -> list[bool]:
            return [r["allowed"] for r in federation.audit() if r.get("name") == name]

        eventually("the denied CREATE is audited", lambda: bool(records()), seconds=10)
        assert records() == [False], records()  # the plain CREATE never reached fedgate
        annotated = as_alice(
            "annotate",
            "secret",
            name,
            "-n",
            "platform-demo",
            "work.karmada.io/conflict-resolution=overwrite",
        )
        assert annotated.returncode != 0 and ANNOTATION_DENIED in annotated.stderr, annotated.stderr
        aborting = as_alice(
            "annotate",
            "secret",
            name,
            "-n",
            "platform-demo",
            "work.karmada.io/conflict-resolution=abort",
        )
        assert aborting.returncode == 0, aborting.stderr  # sent, judged, and the tenant's to set
        eventually("the abort is audited, allowed", lambda: True in records(), seconds=10)
    finally:
        gone = as_alice("delete", "secret", name, "-n", "platform-demo", "--ignore-not-found")
        assert gone.returncode == 0, gone.stderr


def _fedgate_ready(federation: Federation) -> bool:
    url = federation.env["webhook"]["url"].replace("/validate", "/readyz")
    try:
        return controlplane.https_get(url, federation.directory / "pki" / "ca.crt") == 200
    except OSError:
        return False


def test_fedgate_stopped_mid_sync_then_restarted(federation: Federation, synced: Synced) -> None:
    """failurePolicy Fail: with fedgate down, Argo CD's sync of a new commit fails whole
    (nothing slips through unreviewed); once it is back, the next sync completes and the
    federation holds exactly the tree (kubectl diff, as Argo CD's diff, finds nothing)."""
    apps = synced.rendered.parent / "apps"
    spec = apps / "status-page.yaml"
    spec.write_text(spec.read_text().replace("status-page:2.3.1", "status-page:2.3.2"))
    compile_apps(apps, synced.rendered)
    controlplane.stop(federation.directory, "fedgate")
    try:
        failed = argocd_sync(federation, synced.rendered)
        assert failed.returncode != 0
        assert 'failed calling webhook "validate.fedgate.dev"' in failed.stderr, failed.stderr
        live = federation.json("get", "deployment", "status-page", "-n", "platform-demo")
        images = [c["image"] for c in live["spec"]["template"]["spec"]["containers"]]
        assert images == ["registry.example.com/platform/status-page:2.3.1"]
    finally:
        controlplane.restart(federation.directory, "fedgate")
    eventually("fedgate ready again", lambda: _fedgate_ready(federation), seconds=60)
    again = argocd_sync(federation, synced.rendered)
    assert again.returncode == 0, again.stderr
    assert "deployment.apps/status-page configured" in again.stdout
    paths = [arg for folder in TENANT_FOLDERS for arg in ("-f", str(synced.rendered / folder))]
    diff = federation.kubectl("diff", "-R", *paths, user=ARGOCD[0], groups=ARGOCD_GROUPS)
    assert diff.returncode == 0, diff.stdout + diff.stderr


def _trace(federation: Federation, synced: Synced, namespace: str, name: str) -> dict[str, Any]:
    return _fedgate_json(
        "trace",
        f"{namespace}/{name}",
        "--kubeconfig",
        str(federation.karmada),
        "--tree",
        str(synced.rendered),
    )


def test_trace_shows_each_example_app_as_planned_and_marks_a_hand_edit(
    federation: Federation, synced: Synced
) -> None:
    """fedgate trace follows every example Deployment through its policy, binding, Works and
    members, and finds each as planned; a member object edited by hand is marked."""
    deployments = _tree_deployments(synced)
    assert len(deployments) >= 5
    for planned in deployments:
        namespace, name = planned["namespace"], planned["name"]
        deadline = time.monotonic() + 60
        while (traced := _trace(federation, synced, namespace, name))["differences"]:
            if time.monotonic() > deadline:
                pytest.fail(f"{namespace}/{name}: {traced['differences']}")
            time.sleep(2)
        assert traced["policy"]["found"] and traced["binding"], traced
        assert {c["cluster"] for c in traced["clusters"] if c["live"]} == set(planned["clusters"])
    member = _member_placing(federation, "status-page")
    live = federation.json("get", "deployment", "status-page", "-n", "platform-demo", member=member)
    image = live["spec"]["template"]["spec"]["containers"][0]["image"]
    edit = [{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": "x:1"}]
    back = [{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": image}]
    # Karmada puts a hand edit back at once (its work status controller re-applies the Work):
    # with its controller-manager stopped the edit stays, for trace to find
    controlplane.stop(federation.directory, "karmada-controller-manager")
    patched = federation.kubectl(
        "patch",
        "deployment",
        "status-page",
        "-n",
        "platform-demo",
        "--type=json",
        "-p",
        json.dumps(edit),
        member=member,
    )
    assert patched.returncode == 0, patched.stderr
    try:
        traced = _trace(federation, synced, "platform-demo", "status-page")
        assert any(
            d.startswith(f"{member}: the member runs images") for d in traced["differences"]
        ), traced["differences"]
    finally:
        federation.kubectl(
            "patch",
            "deployment",
            "status-page",
            "-n",
            "platform-demo",
            "--type=json",
            "-p",
            json.dumps(back),
            member=member,
        )
        controlplane.restart(federation.directory, "karmada-controller-manager")
        eventually("Karmada's controller-manager healthy again", lambda: _healthy(federation))


def _fedgate_get(federation: Federation, path: str) -> tuple[str, str]:
    """(the served certificate's common name, the body) of a GET to fedgate."""
    url = urllib.parse.urlsplit(federation.env["webhook"]["url"])
    context = ssl.create_default_context(cafile=str(federation.directory / "pki" / "ca.crt"))
    connection = http.client.HTTPSConnection(url.hostname, url.port, context=context, timeout=10)
    try:
        connection.request("GET", path)
        body = connection.getresponse().read().decode()
        cert = connection.sock.getpeercert() if connection.sock else None
    finally:
        connection.close()
    subject = dict(pair for rdn in (cert or {}).get("subject", ()) for pair in rdn)
    return str(subject.get("commonName", "")), body


def _served_bundle(federation: Federation, tmp_path: Path) -> tuple[Path, Path]:
    """The mount fedgate serves its bundle from, and a copy of what it serves now."""
    volume = Path(federation.env["webhook"]["bundle"])
    original = tmp_path / "original"
    shutil.copytree((volume / "..data").resolve(), original)
    return volume, original


def _demo_http_as_argocd(
    federation: Federation, synced: Synced, path: Path, edit: Callable[[dict[str, Any]], None]
) -> Callable[[], subprocess.CompletedProcess[str]]:
    """Argo CD's server-side dry run of demo-http as the tree has it, changed by ``edit``."""
    deployment = yaml.safe_load(
        (synced.rendered / "platform-demo" / "demo-http" / "deployment.yaml").read_text()
    )
    edit(deployment)
    path.write_text(yaml.safe_dump(deployment))
    return partial(
        federation.kubectl,
        "apply",
        "--dry-run=server",
        "-f",
        str(path),
        user=ARGOCD[0],
        groups=ARGOCD_GROUPS,
    )


def test_a_bundle_change_and_a_rotated_certificate_are_served_without_a_restart(
    federation: Federation, synced: Synced, tmp_path: Path
) -> None:
    """fedgate serves its bundle through a ConfigMap-style mount (the ..data symlink the
    kubelet swaps): a lowered limit is enforced without a restart, a broken bundle is refused
    (counted) while the last good one is kept, and a certificate replaced on disk is what new
    connections get. The master's pid never changes."""
    volume, original = _served_bundle(federation, tmp_path)
    master = controlplane.State.load(federation.directory).processes["fedgate"]["pid"]
    apply_three = _demo_http_as_argocd(
        federation, synced, tmp_path / "three.yaml", lambda d: d["spec"].update(replicas=3)
    )
    first = apply_three()
    assert first.returncode == 0, first.stderr
    lowered = tmp_path / "lowered"
    shutil.copytree(original, lowered)
    tenants = lowered / "tenants.yaml"
    tenants.write_text(tenants.read_text().replace("maxReplicasPerApp: 50", "maxReplicasPerApp: 2"))
    controlplane.mount(lowered, volume)
    try:
        eventually("the lowered limit served", lambda: "[max-replicas]" in apply_three().stderr)
        broken = tmp_path / "broken"
        shutil.copytree(original, broken)
        (broken / "tenants.yaml").write_text("tenants: [\n")
        controlplane.mount(broken, volume)
        eventually(
            "the broken bundle refused",
            lambda: (
                "fedgate_bundle_load_errors_total 1.0" in _fedgate_get(federation, "/metrics")[1]
            ),
        )
        assert "[max-replicas]" in apply_three().stderr  # the last good bundle, still
    finally:
        controlplane.mount(original, volume)
    eventually("the original bundle served again", lambda: apply_three().returncode == 0)
    pki = federation.directory / "pki"
    ca = trustme.CA.from_pem((pki / "ca.crt").read_bytes(), (pki / "ca.key").read_bytes())
    leaf = ca.issue_cert("127.0.0.1", "localhost", common_name="fedgate-webhook-rotated")
    pem = pki / "fedgate-serving.pem"
    rotated = pem.with_suffix(".rotated")
    rotated.write_bytes(leaf.private_key_pem.bytes() + leaf.cert_chain_pems[0].bytes())
    rotated.chmod(0o600)
    os.replace(rotated, pem)
    eventually(
        "the rotated certificate served",
        lambda: _fedgate_get(federation, "/healthz")[0] == "fedgate-webhook-rotated",
    )
    assert controlplane.State.load(federation.directory).processes["fedgate"]["pid"] == master


def test_an_exception_the_platform_publishes_lifts_one_rule_until_its_day(
    federation: Federation, synced: Synced, tmp_path: Path
) -> None:
    """An exception added to the bundle fedgate serves (the platform's ConfigMap) lets Argo CD
    sync demo-http on an unpinned image, with a warning naming it, without a restart; once the
    exception is gone from the bundle the write is denied again."""
    volume, original = _served_bundle(federation, tmp_path)

    def unpinned(deployment: dict[str, Any]) -> None:
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            container["image"] = container["image"].rsplit(":", 1)[0] + ":latest"

    apply_latest = _demo_http_as_argocd(federation, synced, tmp_path / "latest.yaml", unpinned)
    assert "[image-tag]" in apply_latest().stderr
    excepted = tmp_path / "excepted"
    shutil.copytree(original, excepted)
    (excepted / "exceptions").mkdir(exist_ok=True)
    (excepted / "exceptions" / "legacy-demo.yaml").write_text(
        LEGACY_EXCEPTION.replace("expires: 2026-12-31", "expires: 2099-12-31")
    )
    controlplane.mount(excepted, volume)
    try:
        lifted = eventually(
            "the exception served", lambda: (r := apply_latest()).returncode == 0 and r
        )
        assert "exception legacy-demo" in lifted.stderr and "lifts image-tag" in lifted.stderr
    finally:
        controlplane.mount(original, volume)
    eventually("the exception gone again", lambda: "[image-tag]" in apply_latest().stderr)


def _replicas(obj: dict[str, Any]) -> int:
    spec = obj.get("spec") or {}
    if obj["kind"] in ("FederatedHPA", "HorizontalPodAutoscaler"):
        return int(spec.get("maxReplicas", 0))
    return int(spec.get("replicas") or 0) if obj["kind"] in ("Deployment", "StatefulSet") else 0


def test_audit_of_the_live_federation_after_a_rule_change(
    federation: Federation, synced: Synced, tmp_path: Path
) -> None:
    """fedgate audit --kubeconfig lists what the live index watches and judges it: after the
    tenants' maxReplicasPerApp drops to 1, the objects max-replicas denies are exactly the live
    workloads of the tenants' namespaces above it (counted here from kubectl's view), besides
    the OverridePolicies whose member copies carry those replicas."""
    policies = tmp_path / "policies"
    shutil.copytree(REPO / "policies", policies)
    tenants = policies / "tenants.yaml"
    text = tenants.read_text()
    for limit in ("maxReplicasPerApp: 50", "maxReplicasPerApp: 100"):
        text = text.replace(limit, "maxReplicasPerApp: 1")
    tenants.write_text(text)
    report = _fedgate_json(
        "audit", "--kubeconfig", str(federation.karmada), policies=policies, codes=(1,)
    )
    denied = {
        (f["object"].get("namespace"), f["object"]["kind"], f["object"]["name"])
        for f in report["findings"]
        if f["rule"] == "max-replicas" and f["action"] == "deny"
    }
    expected = set()
    for kind in ("deployments", "statefulsets", "federatedhpas", "horizontalpodautoscalers"):
        for obj in federation.json("get", kind, "-A")["items"]:
            obj.setdefault("kind", {"federatedhpas": "FederatedHPA"}.get(kind, obj.get("kind")))
            meta = obj["metadata"]
            if meta.get("namespace") in TENANT_FOLDERS and _replicas(obj) > 1:
                expected.add((meta["namespace"], obj["kind"], meta["name"]))
    assert expected and expected <= denied, (expected, denied)
    assert {d[1] for d in denied - expected} <= {"OverridePolicy"}, denied - expected


def _healthy(federation: Federation, name: str = "karmada-controller-manager") -> bool:
    """Whether a component the harness started answers on its health probe address."""
    argv = controlplane.State.load(federation.directory).processes[name]["argv"]
    [address] = [a.split("=", 1)[1] for a in argv if a.startswith("--health-probe-bind-address=")]
    try:
        return controlplane.http_get(f"http://{address}/healthz") == 200
    except OSError:
        return False


def _member_placing(federation: Federation, name: str) -> str:
    """A member cluster running the Deployment ``platform-demo/name``."""
    for member in federation.members:
        found = federation.kubectl("get", "deployment", name, "-n", "platform-demo", member=member)
        if found.returncode == 0:
            return member
    pytest.fail(f"no member runs platform-demo/{name}")


def test_karmada_keeps_working_while_fedgate_is_down(
    federation: Federation, synced: Synced
) -> None:
    """matchConditions let the writers the bundle trusts past fedgate: with fedgate stopped,
    Karmada still reflects a member's status into the template (Work status, binding status,
    the template's status subresource: Karmada's writes) and still re-applies a member's object
    deleted by hand, while a tenant's write is refused (failurePolicy Fail)."""
    if federation.identities == "admin":
        pytest.skip(
            "the components run as system:admin, which is also the operator's identity: their "
            "writes are reviewed, so they wait on fedgate (docs/control-plane.md)"
        )
    name = "demo-http"
    member = _member_placing(federation, name)
    live = federation.json("get", "deployment", name, "-n", "platform-demo", member=member)
    ready = int(live["spec"].get("replicas", 1))
    controlplane.stop(federation.directory, "fedgate")
    try:
        status = finished(live)  # what the member's controllers would report
        patched = federation.kubectl(
            "patch",
            "deployment",
            name,
            "-n",
            "platform-demo",
            "--subresource=status",
            "--type=merge",
            "-p",
            json.dumps({"status": status}),
            member=member,
        )
        assert patched.returncode == 0, patched.stderr

        def reflected() -> int:
            template = federation.json("get", "deployment", name, "-n", "platform-demo")
            return int(template.get("status", {}).get("readyReplicas", 0)) >= ready

        eventually("the member's status reaches the template", reflected, seconds=90)
        deleted = federation.kubectl(
            "delete", "deployment", name, "-n", "platform-demo", "--wait=false", member=member
        )
        assert deleted.returncode == 0, deleted.stderr

        def back() -> bool:
            again = federation.kubectl(
                "get", "deployment", name, "-n", "platform-demo", "-o", "json", member=member
            )
            return (
                again.returncode == 0
                and json.loads(again.stdout)["metadata"]["uid"] != (live["metadata"]["uid"])
            )

        eventually("Karmada re-applies the member's object", back, seconds=90)
        refused = _edit_by_alice(federation)
        assert refused.returncode != 0
        assert 'failed calling webhook "validate.fedgate.dev"' in refused.stderr, refused.stderr
    finally:
        controlplane.restart(federation.directory, "fedgate")
    eventually("fedgate ready again", lambda: _fedgate_ready(federation), seconds=60)


# --- 2. over the whole run: the control plane was never denied --------------------------------


def test_no_control_plane_write_was_denied(federation: Federation, synced: Synced) -> None:
    denied = control_plane_denials(federation)
    assert not denied, "\n".join(denied)


# --- the Helm chart, installed for real -----------------------------------------------------

CHART = controlplane.REPO / "deploy" / "chart" / "fedgate"


@pytest.fixture(scope="module")
def helm() -> Path:
    try:
        return helm_binary()
    except Unavailable as exc:
        pytest.skip(str(exc))


def run_helm(helm: Path, kubeconfig: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(helm), "--kubeconfig", str(kubeconfig), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _edit_by_alice(federation: Federation) -> subprocess.CompletedProcess[str]:
    return federation.kubectl(
        "patch",
        "deployment",
        "demo-http",
        "-n",
        "platform-demo",
        "--type=merge",
        "-p",
        json.dumps({"spec": {"replicas": 7}}),
        "--dry-run=server",
        user=ALICE,
        groups=TEAM_A,
    )


def test_the_chart_s_registration_is_what_the_api_server_calls(
    federation: Federation, synced: Synced, helm: Path, tmp_path: Path
) -> None:
    """The harness's own configuration is replaced by the chart's release: the tenant's edit
    of a Git-owned field is still refused, by fedgate, through the chart's configuration."""
    url = federation.env["webhook"]["url"]
    ca = federation.directory / "pki" / "ca.crt"
    harness = controlplane.fedgate_webhook_configuration(
        url, base64.b64encode(ca.read_bytes()).decode()
    )
    saved = tmp_path / "harness.yaml"
    saved.write_text(yaml.safe_dump(harness))
    deleted = federation.kubectl("delete", "validatingwebhookconfiguration", "fedgate")
    assert deleted.returncode == 0, deleted.stderr
    try:
        installed = run_helm(
            helm,
            federation.karmada,
            "install",
            "fedgate-registration",
            str(CHART),
            "--set",
            "webhook.enabled=false",
            "--set",
            "registration.enabled=true",
            "--set",
            f"registration.url={url}",
            "--set-file",
            f"registration.caBundle={ca}",
            "--wait",
        )
        assert installed.returncode == 0, installed.stderr
        made = federation.json("get", "validatingwebhookconfiguration", "fedgate")
        assert made["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "Helm"
        assert made["webhooks"][0]["clientConfig"]["url"] == url

        def refused() -> bool:
            result = _edit_by_alice(federation)
            return result.returncode != 0 and "[ownership.field-owner]" in result.stderr

        eventually("the chart's configuration in force", refused, seconds=60)
        removed = run_helm(helm, federation.karmada, "uninstall", "fedgate-registration")
        assert removed.returncode == 0, removed.stderr
    finally:
        run_helm(helm, federation.karmada, "uninstall", "fedgate-registration")
        restored = federation.kubectl("apply", "-f", str(saved))
        assert restored.returncode == 0, restored.stderr
    eventually(
        "the harness's configuration in force again",
        lambda: "[ownership.field-owner]" in _edit_by_alice(federation).stderr,
        seconds=60,
    )


def test_the_chart_s_webhook_release_is_accepted_by_a_real_api_server(
    federation: Federation, helm: Path, tmp_path: Path
) -> None:
    """Everything the host-cluster release holds (Deployment, PodDisruptionBudget, Service,
    NetworkPolicy, the generated TLS Secret, the user's bundle ConfigMap) is accepted by a real
    kube-apiserver; a member's stands in for the host cluster (nothing runs the pods here)."""
    member = federation.members[0]
    kubeconfig = Path(federation.env["members"][member]["kubeconfig"])
    bundle = tmp_path / "fedgate-policies.yaml"
    made = subprocess.run(
        [
            str(controlplane.REPO / ".venv" / "bin" / "fedgate"),
            "bundle",
            "--example-policies",
            "--no-index",
            "--out",
            str(bundle),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    try:
        installed = run_helm(
            helm,
            kubeconfig,
            "install",
            "fedgate",
            str(CHART),
            "-n",
            "fedgate-system",
            "--create-namespace",
            "--set-file",
            f"bundle.manifest={bundle}",
        )
        assert installed.returncode == 0, installed.stderr
        for kind, name in (
            ("deployment", "fedgate-webhook"),
            ("poddisruptionbudget", "fedgate-webhook"),
            ("service", "fedgate-webhook"),
            ("networkpolicy", "fedgate-webhook"),
            ("secret", "fedgate-webhook-tls"),
            ("configmap", "fedgate-policies"),
        ):
            found = federation.kubectl("get", kind, name, "-n", "fedgate-system", member=member)
            assert found.returncode == 0, (kind, found.stderr)
        upgraded = run_helm(
            helm,
            kubeconfig,
            "upgrade",
            "fedgate",
            str(CHART),
            "-n",
            "fedgate-system",
            "--set-file",
            f"bundle.manifest={bundle}",
        )
        assert upgraded.returncode == 0, upgraded.stderr
    finally:
        run_helm(helm, kubeconfig, "uninstall", "fedgate", "-n", "fedgate-system")
        federation.kubectl("delete", "namespace", "fedgate-system", "--wait=false", member=member)


# --- last: a member's API server stopped, against `fedgate plan --fail` ----------------------
# Last in the file: Karmada does not move replicas back when the member returns, so the
# placements the tests above compare would no longer hold. The member is restarted and Ready
# again, and its taints gone, before the test ends.

FAILED = "cluster-a"  # after the sync it runs every example app, orders-db among them


def _failover_plan(synced: Synced, policies: Path) -> dict[str, Any]:
    result = subprocess.run(
        [
            FEDGATE,
            "plan",
            "--fail",
            FAILED,
            "--tree",
            str(synced.rendered),
            "--policies",
            str(policies),
            "--output",
            "json",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr  # 1: a finding denies; the JSON is whole
    return dict(json.loads(result.stdout))


def _binding(federation: Federation, namespace: str, name: str) -> dict[str, Any] | None:
    got = federation.kubectl("get", "resourcebinding", name, "-n", namespace, "-o", "json")
    return dict(json.loads(got.stdout)) if got.returncode == 0 else None


def _live_placement(binding: dict[str, Any]) -> dict[str, int | None]:
    return {c["name"]: c.get("replicas") or None for c in binding["spec"].get("clusters") or []}


def _cluster_ready(federation: Federation, name: str) -> str:
    cluster = federation.json("get", "cluster", name)
    for condition in cluster.get("status", {}).get("conditions", []):
        if condition["type"] == "Ready":
            return str(condition["status"])
    return "missing"


def _taints(federation: Federation, name: str) -> list[str]:
    cluster = federation.json("get", "cluster", name)
    return [f"{t['key']}:{t['effect']}" for t in cluster["spec"].get("taints") or []]


@dataclass
class Failover:
    plan: dict[str, Any]
    bindings: dict[str, dict[str, Any]]  # binding key -> the binding after the evictions
    tasks: dict[str, dict[str, str]]  # binding key -> {fromCluster: purgeMode}, every one seen
    works: dict[str, set[str]]  # binding key -> the clusters whose Work carries it, at the end
    not_ready_seconds: float
    evicted_seconds: float


EVICTION_SLACK = 10.0
"""Seconds between an eviction and the test seeing it: the taint controller's and the taint
manager's queues picking up the condition and the taint, and this test's polling of every
binding (one GET each, about a second a round)."""


def _key(template: dict[str, Any]) -> str:
    return f"{template['namespace']}/{template['name']}-{template['kind'].lower()}"


@dataclass
class _Watch:
    """The bindings of the planned templates as polled, every graceful eviction task seen, and
    which clusters' Works carry each template."""

    federation: Federation
    templates: list[dict[str, Any]]
    evicting: set[str]
    bindings: dict[str, dict[str, Any]] = field(default_factory=dict)
    tasks: dict[str, dict[str, str]] = field(default_factory=dict)
    works: dict[str, set[str]] = field(default_factory=dict)

    def evicted(self) -> bool:
        for template in self.templates:
            key = _key(template)
            live = _binding(self.federation, template["namespace"], key.split("/")[1])
            if live is None:
                continue
            self.bindings[key] = live
            for task in live["spec"].get("gracefulEvictionTasks") or []:
                self.tasks.setdefault(key, {})[task["fromCluster"]] = task.get("purgeMode", "")
        return all(
            key in self.bindings and FAILED not in _live_placement(self.bindings[key])
            for key in self.evicting
        )

    def carried(self) -> None:
        self.works.clear()
        for work in self.federation.json("get", "works", "-A")["items"]:
            cluster = work["metadata"]["namespace"].removeprefix("karmada-es-")
            for m in work["spec"]["workload"]["manifests"]:
                meta = m["metadata"]
                key = f"{meta.get('namespace')}/{meta['name']}-{m['kind'].lower()}"
                self.works.setdefault(key, set()).add(cluster)


@pytest.fixture(scope="module")
def failover(
    federation: Federation, synced: Synced, tmp_path_factory: pytest.TempPathFactory
) -> Failover:
    """cluster-a's API server stopped with failover on (the harness's flags and the
    ClusterTaintPolicy of policies/karmada.yaml), watched until Karmada has evicted what the
    plan says it evicts; cluster-a restarted and Ready again afterwards."""
    policies = tmp_path_factory.mktemp(f"failover-{federation.identities}") / "policies"
    shutil.copytree(REPO / "policies", policies)
    (policies / "karmada.yaml").write_text(yaml.safe_dump(controlplane.karmada_settings()))
    plan = _failover_plan(synced, policies)
    assert plan["controlPlane"]["evicts"], plan["controlPlane"]
    templates = [t for t in plan["templates"] if t["namespace"] in TENANT_FOLDERS]
    on_failed = [t for t in templates if FAILED in t["placementBefore"]]
    assert on_failed, f"nothing runs on {FAILED}: the test would show nothing"
    for template in on_failed:
        live = _binding(federation, template["namespace"], _key(template).split("/")[1])
        assert live is not None and FAILED in _live_placement(live), _key(template)
    evicted = {
        _key(t)
        for t in on_failed
        if any(e["cluster"] == FAILED and e["evicted"] for e in t["evictions"])
    }
    policy = controlplane.cluster_taint_policy()
    applied = federation.kubectl("apply", "-f", "-", stdin=json.dumps(policy))
    assert applied.returncode == 0, applied.stderr
    member = f"member-{FAILED}"
    watch = _Watch(federation, templates, evicted)
    started = time.monotonic()
    controlplane.stop(federation.directory, member)
    try:
        eventually(
            f"{FAILED} NotReady in Karmada",
            lambda: _cluster_ready(federation, FAILED) in {"False", "Unknown"},
            seconds=120,
        )
        not_ready = time.monotonic() - started
        eventually(f"the bindings evicted from {FAILED}", watch.evicted, seconds=120)
        evicted_at = time.monotonic() - started
        # the scheduler divides the evicted replicas over the clusters left: give it time
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            watch.evicted()
            time.sleep(2)
        watch.carried()
    finally:
        controlplane.restart(federation.directory, member)
        try:
            eventually(
                f"{FAILED} Ready again",
                lambda: _cluster_ready(federation, FAILED) == "True",
                seconds=120,
            )
            # the policy's removeOnConditions take its NoExecute taint off: delete it after
            eventually(f"{FAILED}'s taints removed", lambda: not _taints(federation, FAILED))
        finally:
            federation.kubectl("delete", "clustertaintpolicy", policy["metadata"]["name"])
    for key, live in sorted(watch.bindings.items()):
        print(key, _live_placement(live), watch.tasks.get(key), sorted(watch.works.get(key, ())))
    return Failover(plan, watch.bindings, watch.tasks, watch.works, not_ready, evicted_at)


def _planned(failover: Failover) -> list[dict[str, Any]]:
    return [t for t in failover.plan["templates"] if t["namespace"] in TENANT_FOLDERS]


def test_a_stopped_member_evicts_what_plan_fail_says(failover: Failover) -> None:
    differences = []
    for template in _planned(failover):
        key = _key(template)
        live = failover.bindings.get(key)
        if live is None:
            differences.append(f"{key}: no ResourceBinding")
            continue
        [eviction] = [e for e in template["evictions"] if e["cluster"] == FAILED] or [None]
        planned_out = eviction is not None and eviction["evicted"]
        live_out = FAILED not in _live_placement(live)
        if eviction is not None and planned_out != live_out:
            differences.append(f"{key}: plan evicted={planned_out}, Karmada evicted={live_out}")
    assert not differences, "\n".join(differences)
    print(
        f"NotReady {failover.not_ready_seconds:.0f} s after the stop;"
        f" evicted by {failover.evicted_seconds:.0f} s"
    )


def test_the_evictions_come_within_the_window_plan_fail_predicts(failover: Failover) -> None:
    """plan --fail says when each eviction is due after the taint (its toleration) and when
    Karmada's rate-limited queue takes it; the taint comes when the cluster turns NotReady. The
    last planned eviction is seen no later than the latest of those windows after NotReady,
    give or take the watch's polling (SLACK), and no earlier than the earliest."""
    windows = [
        e["queueSeconds"]
        for t in _planned(failover)
        for e in t["evictions"]
        if e["cluster"] == FAILED and e["evicted"] and e.get("queueSeconds")
    ]
    assert windows, "no planned eviction has a window: the test would hold nothing"
    latest = max(w["latest"] for w in windows)
    earliest = min(w["earliest"] for w in windows)
    after_taint = failover.evicted_seconds - failover.not_ready_seconds
    control = failover.plan["controlPlane"]
    threshold = control["clusterFailureThresholdSeconds"]
    frequency = control["clusterStatusUpdateFrequencySeconds"]
    print(
        f"NotReady {failover.not_ready_seconds:.1f} s after the stop (plan: {threshold:g}-"
        f"{threshold + frequency:g} s); evicted {after_taint:.1f} s after (plan: {earliest:g}-"
        f"{latest:g} s)"
    )
    # the member's last status is up to one update period old when it stops
    assert threshold - frequency <= failover.not_ready_seconds, failover.not_ready_seconds
    assert failover.not_ready_seconds <= threshold + frequency + EVICTION_SLACK
    assert after_taint <= latest + EVICTION_SLACK, (after_taint, earliest, latest)
    assert failover.evicted_seconds >= earliest, (failover.evicted_seconds, earliest)


def test_purge_modes_are_what_plan_fail_says(failover: Failover) -> None:
    """Gracefully for every evicted template, Directly for orders-db (failover.cluster of
    its PropagationPolicy): the taint manager writes it into each graceful eviction task."""
    differences = []
    modes = {}
    unseen: list[str] = []
    for template in _planned(failover):
        for eviction in template["evictions"]:
            if eviction["cluster"] == FAILED and eviction["evicted"]:
                key = _key(template)
                modes[key] = eviction["purgeMode"]
                if FAILED not in failover.tasks.get(key, {}):
                    # done before a poll saw it: the graceful eviction controller drops a task
                    # once the clusters left report the copy healthy (an HPA at once)
                    unseen.append(key)
                    continue
                live = failover.tasks[key][FAILED]
                if live != eviction["purgeMode"]:
                    differences.append(f"{key}: plan {eviction['purgeMode']}, Karmada {live}")
    assert modes.get("platform-demo/orders-db-deployment") == "Directly", modes
    assert "platform-demo/orders-db-deployment" not in unseen
    # a graceful task lives until the clusters left report the copy healthy (20 s with the
    # members' rollouts, an HPA at once), so how many a poll sees is timing; one is enough to
    # hold the mode Karmada wrote for them
    seen_graceful = [k for k, mode in modes.items() if mode == "Gracefully" and k not in unseen]
    assert seen_graceful, f"no graceful eviction task seen: {unseen}"
    assert not differences, "\n".join(differences)


def test_new_copies_start_as_plan_fail_says(failover: Failover) -> None:
    """Gracefully: the new copies' Works are written at once, the old copy kept beside them.
    Directly (orders-db): the binding controller writes no Work while the old copy's Work
    stays on the failed cluster (pkg/controllers/binding/binding_controller.go,
    checkDirectPurgeOrphanWorks), and the execution controller deletes none on a cluster not
    Ready: nothing new starts during the outage, as the plan's sentence says."""
    differences = []
    for template in _planned(failover):
        key = _key(template)
        live = failover.bindings.get(key)
        evicted = [e for e in template["evictions"] if e["cluster"] == FAILED and e["evicted"]]
        if live is None or not evicted:
            continue
        held = any("holds the new copies back" in line for line in template["twice"])
        new = set(_live_placement(live)) - set(template["placementBefore"])
        running = failover.works.get(key, set())
        if held and new & running:
            differences.append(f"{key}: plan holds it back, Karmada started {new & running}")
        if not held and not set(_live_placement(live)) <= running:
            differences.append(
                f"{key}: Works in {sorted(running)}, placement {sorted(_live_placement(live))}"
            )
        if FAILED not in running:
            differences.append(f"{key}: the Work on {FAILED} is gone while it is down")
    assert not differences, "\n".join(differences)


def test_replicas_go_where_plan_fail_says(failover: Failover) -> None:
    differences = []
    for template in _planned(failover):
        key = _key(template)
        live = failover.bindings.get(key)
        if live is None or not template["evictions"]:
            continue
        placement = _live_placement(live)
        planned = [template["placementAfter"], template.get("placementAlternative")]
        planned = [{c: r for c, r in p.items() if r != 0} for p in planned if p is not None]
        if template["name"] in AUTOSCALED:
            # the FederatedHPA moves the count with its metrics at any time: compare the
            # clusters only (plan --tree starts it where the controller does, at minReplicas)
            placement = dict.fromkeys(placement)
            planned = [dict.fromkeys(p) for p in planned]
        if placement not in planned:
            differences.append(f"{key}: Karmada {placement}, plan {planned}")
    assert not differences, "\n".join(differences)


def test_no_control_plane_write_was_denied_in_the_failover(
    federation: Federation, failover: Failover
) -> None:
    """The taint manager's, scheduler's and binding controller's writes of the failover (and
    of the member's return) pass fedgate too."""
    denied = control_plane_denials(federation)
    assert not denied, "\n".join(denied)

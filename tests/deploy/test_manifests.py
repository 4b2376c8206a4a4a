"""deploy/: every manifest is valid Kubernetes, and the webhook registration is what we claim."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from tests.conftest import POLICIES, ROOT
from webhook.bundle.export import RESOURCES
from webhook.bundle.load import load_bundle
from webhook.engine import controllers
from webhook.engine.cel.engines import make_backend
from webhook.engine.components import WRITES
from webhook.engine.registration import WEBHOOK_KINDS

DEPLOY = ROOT / "deploy"
KUBERNETES_VERSION = "1.33"
NOT_BUILT_IN = ("cert-manager.io/",)  # CRDs, no schema here: checked for shape below
PATCHES = ("argocd/repo-server-patch.yaml", "argocd/argocd-cm-health.yaml")
"""Patches (strategic merge): not whole objects."""
KARMADA_CRDS = ("config.karmada.io/",)  # validated against Karmada's CRD in test_health.py
REGISTERED = (
    (
        "apps",
        "v1",
        (
            *("deployments", "deployments/scale", "deployments/status"),
            *("statefulsets", "statefulsets/scale", "statefulsets/status"),
            *("daemonsets", "daemonsets/status"),
            *("replicasets", "replicasets/scale", "replicasets/status"),
        ),
    ),
    ("batch", "v1", ("jobs", "jobs/status", "cronjobs", "cronjobs/status")),
    (
        "",
        "v1",
        (
            *("pods", "pods/status", "pods/ephemeralcontainers"),
            *("replicationcontrollers", "replicationcontrollers/scale"),
            "replicationcontrollers/status",
        ),
    ),
    (
        "policy.karmada.io",
        "v1alpha1",
        (
            "propagationpolicies",
            "overridepolicies",
            "clusterpropagationpolicies",
            "clusteroverridepolicies",
        ),
    ),
    ("autoscaling.karmada.io", "v1alpha1", ("federatedhpas", "cronfederatedhpas")),
    ("autoscaling", "v2", ("horizontalpodautoscalers",)),
    (
        "work.karmada.io",
        "v1alpha2",
        (
            *("resourcebindings", "resourcebindings/status"),
            *("clusterresourcebindings", "clusterresourcebindings/status"),
        ),
    ),
    ("work.karmada.io", "v1alpha1", ("works", "works/status")),
)
"""What the webhook is registered for: every kind a tenant can run code or move data with."""


def documents() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(DEPLOY.rglob("*.yaml")):
        if "chart" in path.relative_to(DEPLOY).parts:  # templates: tests/deploy/test_chart.py
            continue
        for index, document in enumerate(yaml.safe_load_all(path.read_text())):
            if document:
                found.append((f"{path.relative_to(DEPLOY)}#{index}", document))
    return found


DOCUMENTS = documents()


@pytest.mark.parametrize(("where", "document"), DOCUMENTS, ids=[w for w, _ in DOCUMENTS])
def test_manifest_is_valid(where: str, document: dict[str, Any], reference: Path) -> None:
    if where.split("#", maxsplit=1)[0] == "argocd/argocd-cm-health.yaml":
        assert set(document) == {"data"}
        assert all(k.startswith("resource.customizations.health.") for k in document["data"])
        return
    if document["apiVersion"].startswith(KARMADA_CRDS):
        assert document["kind"] == "ResourceInterpreterCustomization"
        return
    if where.split("#", maxsplit=1)[0] in PATCHES:
        [container] = document["spec"]["template"]["spec"]["containers"]
        assert container["command"] == ["/var/run/argocd/argocd-cmp-server"]
        assert container["securityContext"]["runAsUser"] == 999  # Argo CD's requirement
        return
    if document.get("kind") == "AppProject":  # no AppProject CRD in the reference data
        assert {"sourceRepos", "destinations", "clusterResourceWhitelist"} <= set(document["spec"])
        return
    if document["apiVersion"] == "argoproj.io/v1alpha1":
        crd = yaml.safe_load((reference / "argocd" / "application-crd.yaml").read_text())
        schema = next(v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1")
        jsonschema.validate(document, schema["schema"]["openAPIV3Schema"])
        return
    if document["apiVersion"].startswith(NOT_BUILT_IN):
        assert document["kind"] in ("Issuer", "Certificate")
        assert document["metadata"]["namespace"] == "fedgate-system"
        return
    kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


def _one(kind: str) -> dict[str, Any]:
    [document] = [
        d
        for w, d in DOCUMENTS
        if (d.get("kind") == kind and w.startswith("webhook/"))
        or d.get("kind") == kind == "ValidatingWebhookConfiguration"
    ]
    return document


def _hook(name: str = "validate.fedgate.dev") -> dict[str, Any]:
    [hook] = [h for h in _one("ValidatingWebhookConfiguration")["webhooks"] if h["name"] == name]
    return hook


def test_webhook_registration() -> None:
    hook = _hook()
    assert hook["failurePolicy"] == "Fail"
    assert hook["timeoutSeconds"] == 3
    assert hook["sideEffects"] == "None"
    assert hook["admissionReviewVersions"] == ["v1"]
    assert hook["matchPolicy"] == "Equivalent"
    assert hook["clientConfig"]["url"].endswith("/validate")
    assert hook["clientConfig"]["url"].startswith("https://fedgate-webhook.fedgate-system.svc")
    [excluded] = hook["namespaceSelector"]["matchExpressions"]
    assert (excluded["key"], excluded["operator"]) == ("kubernetes.io/metadata.name", "NotIn")
    assert {"karmada-system", "kube-system", "fedgate-system"} <= set(excluded["values"])
    assert _covered(hook) == {
        (group, version, resource, operation)
        for group, version, resources in REGISTERED
        for resource in resources
        for operation in ("CREATE", "UPDATE", "DELETE")
    }


def test_every_kind_a_rule_names_is_registered() -> None:
    """A kind the bundle's rules match but the API server never sends is a rule that never runs."""
    hook = _hook()
    registered = {(group, resource) for group, _, resource, _ in _covered(hook)}
    named = {k for rule in load_bundle(POLICIES).rules for k in rule.match.kinds if "*" not in k}
    missing = sorted(
        (group, kind) for group, kind in named if (group, RESOURCES[kind]) not in registered
    )
    assert not missing, f"rules match kinds the webhook is not registered for: {missing}"


def test_the_engine_knows_which_kinds_the_main_entry_sends() -> None:
    """The engine judges a kind outside WEBHOOK_KINDS on its conflict-resolution annotation
    alone, as only the annotation entry sends it: the two lists are one."""
    registered = {(group, resource) for group, _, resource, _ in _covered(_hook())}
    kinds = {(g, RESOURCES[k]) for g, k in WEBHOOK_KINDS if k != "Scale"}
    assert kinds == {(g, r) for g, r in registered if "/" not in r}
    assert {r for _, r in registered if r.endswith("/scale")}  # sent as autoscaling/Scale


def test_the_conflict_resolution_annotation_entry() -> None:
    """Every namespaced kind, CREATE and UPDATE, no subresource, as the main entry's timeout,
    failure policy and excluded namespaces; the controller-manager never waits on it either."""
    hook, main = _hook(ANNOTATION_ENTRY), _hook()
    assert hook["rules"] == [
        {
            "apiGroups": ["*"],
            "apiVersions": ["*"],
            "operations": ["CREATE", "UPDATE"],
            "resources": ["*"],  # "*/*" would add every subresource
            "scope": "Namespaced",
        }
    ]
    for key in ("failurePolicy", "timeoutSeconds", "sideEffects", "namespaceSelector"):
        assert hook[key] == main[key], key
    assert hook["clientConfig"] == main["clientConfig"]
    conditions = {c["name"]: c["expression"] for c in hook["matchConditions"]}
    karmada = {c["name"]: c["expression"] for c in main["matchConditions"]}
    assert conditions["karmada-components-never-wait"] == karmada["karmada-components-never-wait"]


ANNOTATION_ENTRY = "conflict-resolution.fedgate.dev"
ANNOTATED = {"work.karmada.io/conflict-resolution": "overwrite"}


def _annotation_sent(
    username: str,
    namespace: str,
    new: dict[str, str] | None,
    old: dict[str, str] | None = None,
    *,
    resource: tuple[str, str] = ("", "secrets"),
    operation: str = "UPDATE",
) -> bool:
    """Whether the API server calls fedgate through the annotation entry: ``new`` and ``old``
    are the annotations of the object and the old object (None: no old object, a CREATE)."""
    request = {
        "userInfo": {"username": username, "groups": []},
        "operation": operation if old is not None else "CREATE",
        "resource": {"group": resource[0], "version": "v1", "resource": resource[1]},
        "namespace": namespace,
    }
    variables = {
        "request": request,
        "object": {"metadata": {"name": "x", **({"annotations": new} if new else {})}},
        "oldObject": None
        if old is None
        else {"metadata": {"name": "x", **({"annotations": old} if old else {})}},
    }
    return all(
        backend.evaluate(program, backend.activation(variables))
        for backend, program in _conditions(ANNOTATION_ENTRY).values()
    )


ALICE = "alice@example.com"


@pytest.mark.parametrize(
    ("case", "sent"),
    [
        # a tenant's write carrying the annotation, by any value, on any kind: judged
        ((ALICE, "platform-demo", ANNOTATED), True),
        ((ALICE, "platform-demo", {"work.karmada.io/conflict-resolution": "abort"}), True),
        ((ALICE, "default", ANNOTATED, {}), True),  # added by an UPDATE
        ((ALICE, "platform-demo", {}, ANNOTATED), True),  # removed: judged, and passes
        ((ALICE, "platform-demo", {"note": "x"}), False),  # no annotation: never sent
        ((ALICE, "platform-demo", None, {}), False),  # no annotations at all
        ((ALICE, "platform-demo", {"work.karmada.io/conflict-resolution-x": "overwrite"}), False),
        # Karmada's binding controller annotates every Work it writes, in karmada-es-*
        (("system:karmada:karmada-controller-manager", "karmada-es-member-1", ANNOTATED), False),
        (("system:admin", "karmada-es-member-1", ANNOTATED, ANNOTATED), False),
        (("system:karmada:agent:member-1", "karmada-es-member-1", ANNOTATED, ANNOTATED), False),
        # the controller-manager claiming or marking an annotated template anywhere: never waits
        (
            ("system:karmada:karmada-controller-manager", "platform-demo", ANNOTATED, ANNOTATED),
            False,
        ),
        # kube-controller-manager's controllers in Kubernetes' own namespaces
        (("system:kube-controller-manager", "kube-public", ANNOTATED, ANNOTATED), False),
        (("system:kube-controller-manager", "kube-node-lease", ANNOTATED), False),
        # elsewhere a controller's UPDATE of an annotated object is sent, and passes
        # (the garbage collector and system:admin cases of tenancy.conflict-overwrite/tests.yaml)
        (
            (
                "system:serviceaccount:kube-system:generic-garbage-collector",
                "platform-demo",
                ANNOTATED,
                ANNOTATED,
            ),
            True,
        ),
        (("system:admin", "platform-demo", ANNOTATED, ANNOTATED), True),
        # a tenant's namespace named like Karmada's is not Karmada's
        ((ALICE, "team-karmada-es-x", ANNOTATED), True),
    ],
)
def test_the_annotation_entry_sends_only_what_carries_it(case: tuple[Any, ...], sent: bool) -> None:
    assert _annotation_sent(*case) is sent


def _covered(hook: dict[str, Any]) -> set[tuple[str, str, str, str]]:
    return {
        (group, version, resource, operation)
        for rule in hook["rules"]
        for group in rule["apiGroups"]
        for version in rule["apiVersions"]
        for resource in rule["resources"]
        for operation in rule["operations"]
    }


def test_webhook_deployment_is_hardened() -> None:
    deployment = _one("Deployment")
    assert deployment["spec"]["replicas"] == 3
    pod = deployment["spec"]["template"]["spec"]
    [container] = pod["containers"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert {"requests", "limits"} <= set(container["resources"])
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert _one("PodDisruptionBudget")["spec"]["minAvailable"] == 2
    service = _one("Service")
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]


def test_bundle_configmap_is_current() -> None:
    from deploy.bundle_configmap import example_configmap  # noqa: PLC0415 - a script

    assert (DEPLOY / "webhook" / "policies.yaml").read_bytes() == example_configmap(), (
        "deploy/webhook/policies.yaml is stale: run make deploy-bundle"
    )


def test_the_mounted_configmap_is_the_same_bundle(tmp_path: Path) -> None:
    """Mounted as the kubelet mounts it (every data and binaryData key a file), the ConfigMap
    is the same bundle, with the same index."""
    configmap = yaml.safe_load((DEPLOY / "webhook" / "policies.yaml").read_text())
    for key, text in configmap["data"].items():
        (tmp_path / key).write_text(text)
    for key, encoded in configmap["binaryData"].items():
        (tmp_path / key).write_bytes(base64.b64decode(encoded))
    mounted, original = load_bundle(tmp_path), load_bundle(POLICIES)
    assert mounted.index is not None and original.index is not None
    assert mounted.index.objects == original.index.objects
    assert [replace(r, folder="") for r in mounted.rules] == [
        replace(r, folder="") for r in original.rules
    ]
    assert (mounted.tenants, mounted.clusters, mounted.writers) == (
        original.tenants,
        original.clusters,
        original.writers,
    )


def test_the_argocd_plugin_is_well_formed() -> None:
    configmap = next(d for w, d in DOCUMENTS if w.startswith("argocd/cmp-plugin.yaml"))
    plugin = yaml.safe_load(configmap["data"]["plugin.yaml"])
    assert plugin["kind"] == "ConfigManagementPlugin"
    assert plugin["metadata"]["name"] == "fedgate"
    assert "fedgate compile" in plugin["spec"]["generate"]["args"][0]
    assert "--out -" in plugin["spec"]["generate"]["args"][0]
    application = next(
        d
        for w, d in DOCUMENTS
        if w.startswith("argocd/application-example") and d["kind"] == "Application"
    )
    name = f"{plugin['metadata']['name']}-{plugin['spec']['version']}"
    assert application["spec"]["source"]["plugin"]["name"] == name


def test_scripts_are_executable() -> None:
    for script in ("install.sh", "dev-certificate.sh"):
        assert (DEPLOY / script).stat().st_mode & 0o111
    assert shutil.which("bash")


def _install(tmp_path: Path, bundle: str | None) -> tuple[subprocess.CompletedProcess[str], str]:
    """deploy/install.sh with a kubectl on PATH that records what it is asked to do."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    log = tmp_path / "kubectl.log"
    stub = bin_dir / "kubectl"
    stub.write_text(
        "#!/usr/bin/env bash\n"
        f'echo "$*" >> {log}\n'
        'case "$*" in *"get secret"*) printf Q0E= ;; *"apply -f -"*) cat >/dev/null ;; esac\n'
    )
    stub.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOST": "host", "KARMADA": "karmada"}
    if bundle is not None:
        env["BUNDLE"] = bundle
    result = subprocess.run(
        ["bash", str(DEPLOY / "install.sh")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return result, log.read_text() if log.exists() else ""


@pytest.mark.slow
def test_install_applies_the_user_s_bundle_and_never_the_example_unasked(tmp_path: Path) -> None:
    """install.sh applied the example world's bundle whatever the repository said: Argo CD's
    first sync naming the user's clusters was denied ('unknown clusters eu-1, eu-2')."""
    missing, calls = _install(tmp_path, None)
    assert missing.returncode != 0 and not calls
    assert "set BUNDLE to the file `fedgate bundle --out FILE` wrote" in missing.stderr
    absent, calls = _install(tmp_path, "nope.yaml")
    assert absent.returncode == 1 and not calls
    assert "BUNDLE=nope.yaml: no such file" in absent.stderr
    (tmp_path / "ours.yaml").write_text("kind: ConfigMap\n")
    ours, calls = _install(tmp_path, "ours.yaml")
    assert ours.returncode == 0, ours.stderr
    assert f"--context host apply -f {tmp_path / 'ours.yaml'} -f webhook/deployment.yaml" in calls
    assert "policies.yaml" not in calls
    example, calls = _install(tmp_path, "example")
    assert example.returncode == 0, example.stderr
    assert "apply -f webhook/policies.yaml -f webhook/deployment.yaml" in calls


def _conditions(name: str = "validate.fedgate.dev") -> dict[str, Any]:
    hook = _hook(name)
    backend = make_backend("cel-expr")
    return {c["name"]: (backend, backend.compile(c["expression"])) for c in hook["matchConditions"]}


def _sent_to_fedgate(
    username: str,
    operation: str,
    resource: tuple[str, str] = ("apps", "deployments"),
    namespace: str = "platform-demo",
) -> bool:
    """Whether the API server calls fedgate for this write (every matchCondition true):
    ``resource`` is the request's (group, resource), ``namespace`` empty for a cluster-scoped
    object."""
    request = {
        "userInfo": {"username": username, "groups": []},
        "operation": operation,
        "resource": {"group": resource[0], "version": "v1", "resource": resource[1]},
        "namespace": namespace,
    }
    return all(
        backend.evaluate(program, backend.activation({"request": request}))
        for backend, program in _conditions().values()
    )


BINDINGS = (("work.karmada.io", "resourcebindings"), ("work.karmada.io", "clusterresourcebindings"))
WORKS = ("work.karmada.io", "works")
TEMPLATE = ("apps", "deployments")
_KINDS = {
    "resourcebindings": "ResourceBinding",
    "clusterresourcebindings": "ClusterResourceBinding",
    "works": "Work",
    "deployments": "Deployment",
}


def test_the_trusted_writers_who_skip_fedgate_are_the_bundle_s() -> None:
    """The writes matchConditions let past fedgate are the jobs of the example bundle's writers,
    and no more (webhook/engine/components.py): every write of the controller-manager by its
    own username (system:admin left out: the operator is system:admin too), the scheduler's and
    descheduler's UPDATEs of bindings, the agents' Works, and the system writer's controllers'
    DELETEs. A component outside its job (the scheduler writing a template, an agent a
    binding) and one whose job writes nothing fedgate judges (karmada-search, the metrics
    adapter, ...) is reviewed, so ownership.karmada-component denies it."""
    bundle = load_bundle(POLICIES)
    named: set[str] = set()
    for component in bundle.karmada_components:
        scopes = WRITES.get(component.name, ())
        usernames = [u for u in component.usernames if u != "system:admin"]
        usernames += [p + "member-1" for p in component.username_prefixes]
        if scopes:
            named.update(u for u in component.usernames if u != "system:admin")
            named.update(component.username_prefixes)
        for username in usernames:
            for operation in ("CREATE", "UPDATE", "DELETE"):
                for resource in (*BINDINGS, WORKS, TEMPLATE):
                    group, plural = resource
                    job = any(
                        operation in scope.operations
                        and any(
                            kind in (("*", "*"), (group, _KINDS[plural])) for kind in scope.kinds
                        )
                        for scope in scopes
                    )
                    assert _sent_to_fedgate(username, operation, resource) is not job, (
                        username,
                        operation,
                        resource,
                    )
    system = bundle.writer("system")
    assert system is not None
    for username in system.usernames:
        assert _sent_to_fedgate(username, "UPDATE"), username
        for resource, namespace in (
            (TEMPLATE, "platform-demo"),
            (("batch", "jobs"), "platform-demo"),
            (("policy.karmada.io", "clusterpropagationpolicies"), ""),
        ):
            lanes = {lane.name for lane in controllers.lanes(username)}
            job = bool(
                lanes & {"garbage-collected"}
                or ("namespace-deleted" in lanes and namespace)
                or ("ttl-after-finished" in lanes and resource == ("batch", "jobs"))
            )
            sent = _sent_to_fedgate(username, "DELETE", resource, namespace)
            assert sent is not job, (username, resource, namespace)
    text = "".join(c["expression"] for c in _hook()["matchConditions"])
    quoted = set(re.findall(r"'([^']*)'", text)) - {""}
    kept = {"DELETE", "UPDATE", "work.karmada.io", "resourcebindings", "clusterresourcebindings"}
    kept |= {"works", "batch", "jobs"}
    assert quoted - kept == named | set(system.usernames)


@pytest.mark.parametrize(
    ("username", "operation"),
    [
        ("system:admin", "UPDATE"),  # the operator's identity, and a component's in one layout
        ("system:serviceaccount:kube-system:argocd-manager", "UPDATE"),  # git
        ("alice@example.com", "DELETE"),
        ("system:serviceaccount:platform-demo:karmada-controller-manager", "UPDATE"),
        ("system:serviceaccount:platform-demo:namespace-controller", "DELETE"),
        ("system:karmada:karmada-scheduler-x", "UPDATE"),  # a name that only begins like one
        ("system:karmada:agent", "UPDATE"),  # the prefix is "system:karmada:agent:"
        ("system:kube-controller-manager", "CREATE"),
        ("system:serviceaccount:kube-system:generic-garbage-collector", "UPDATE"),
        ("", "UPDATE"),
    ],
)
def test_everyone_else_still_waits_on_fedgate(username: str, operation: str) -> None:
    """A tenant's service account named like a controller, a name that begins like a
    component's, the operator: all are reviewed; so is a controller's non-DELETE write."""
    assert _sent_to_fedgate(username, operation)

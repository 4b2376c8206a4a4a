"""deploy/chart/fedgate through the real helm (built from its Go module): it lints, renders
objects Kubernetes' schemas accept, runs the webhook as deploy/ does, registers it with the
Karmada API server with the same rules as deploy/karmada/validating-webhook.yaml and the CA
that signed the certificate it generated, and refuses to install without the user's bundle."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tests.deploy.helm import Unavailable, helm_binary

CHART = ROOT / "deploy" / "chart" / "fedgate"
WEBHOOK = ROOT / "deploy" / "webhook" / "deployment.yaml"
REGISTRATION = ROOT / "deploy" / "karmada" / "validating-webhook.yaml"
BUNDLE = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: fedgate-policies, namespace: fedgate-system}
data: {clusters.yaml: "clusters: []"}
"""

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def helm() -> Path:
    try:
        return helm_binary()
    except Unavailable as exc:
        pytest.skip(str(exc))


def run(helm: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(helm), *args], capture_output=True, text=True, timeout=300, check=False
    )


def template(helm: Path, tmp_path: Path, *values: str, bundle: str | None = BUNDLE) -> Any:
    extra = []
    if bundle is not None:
        (tmp_path / "bundle.yaml").write_text(bundle)
        extra = ["--set-file", f"bundle.manifest={tmp_path / 'bundle.yaml'}"]
    result = run(helm, "template", "fedgate", str(CHART), "-n", "fedgate-system", *extra, *values)
    return result


def objects(result: subprocess.CompletedProcess[str]) -> dict[tuple[str, str], dict[str, Any]]:
    assert result.returncode == 0, result.stderr
    found = [d for d in yaml.safe_load_all(result.stdout) if d]
    return {(d["kind"], d["metadata"]["name"]): d for d in found}


def test_the_chart_lints(helm: Path, tmp_path: Path) -> None:
    (tmp_path / "bundle.yaml").write_text(BUNDLE)
    result = run(
        helm,
        "lint",
        str(CHART),
        "--strict",
        "--set-file",
        f"bundle.manifest={tmp_path / 'bundle.yaml'}",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 chart(s) failed" in result.stdout


def test_every_object_is_what_kubernetes_accepts(helm: Path, tmp_path: Path) -> None:
    import kubernetes_validate  # noqa: PLC0415 - test extra

    host = objects(template(helm, tmp_path))
    karmada = objects(
        template(
            helm,
            tmp_path,
            "--set",
            "webhook.enabled=false",
            "--set",
            "registration.enabled=true",
            "--set",
            "registration.caBundle=-----BEGIN CERTIFICATE-----",
            bundle=None,
        )
    )
    kinds = sorted(k for k, _ in host)
    assert kinds == [
        "ConfigMap",
        "Deployment",
        "NetworkPolicy",
        "PodDisruptionBudget",
        "Secret",
        "Service",
        "ServiceAccount",
    ]
    assert sorted(k for k, _ in karmada) == ["ValidatingWebhookConfiguration"]
    for obj in [*host.values(), *karmada.values()]:
        kubernetes_validate.validate(obj, "1.30", strict=True)


def test_the_webhook_runs_as_deploy_runs_it(helm: Path, tmp_path: Path) -> None:
    host = objects(template(helm, tmp_path))
    chart = host[("Deployment", "fedgate-webhook")]["spec"]["template"]["spec"]
    deploy = next(
        d for d in yaml.safe_load_all(WEBHOOK.read_text()) if d and d["kind"] == "Deployment"
    )["spec"]["template"]["spec"]
    for key in ("securityContext", "volumes", "terminationGracePeriodSeconds"):
        assert chart[key] == deploy[key], key
    (mine,), (theirs,) = chart["containers"], deploy["containers"]
    for key in ("args", "env", "ports", "startupProbe", "readinessProbe", "livenessProbe"):
        assert mine[key] == theirs[key], key
    assert mine["securityContext"] == theirs["securityContext"]
    assert mine["resources"] == theirs["resources"]


def test_the_live_index_is_switched_on_with_a_kubeconfig_secret(helm: Path, tmp_path: Path) -> None:
    host = objects(
        template(
            helm,
            tmp_path,
            "--set",
            "liveIndex.enabled=true",
            "--set",
            "liveIndex.kubeconfigSecret=karmada-kubeconfig",
            "--set",
            "liveIndex.auditSeconds=300",
        )
    )
    spec = host[("Deployment", "fedgate-webhook")]["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    assert container["args"][-3:] == [
        "--kubeconfig=/etc/fedgate/karmada/kubeconfig",
        "--index-stale-seconds=30",
        "--audit-seconds=300",
    ]
    assert {"name": "karmada", "mountPath": "/etc/fedgate/karmada", "readOnly": True} in (
        container["volumeMounts"]
    )
    [volume] = [v for v in spec["volumes"] if v["name"] == "karmada"]
    assert volume["secret"] == {"secretName": "karmada-kubeconfig", "defaultMode": 0o440}
    refused = template(helm, tmp_path, "--set", "liveIndex.enabled=true")
    assert refused.returncode != 0 and "liveIndex.kubeconfigSecret" in refused.stderr


def test_the_registration_is_deploy_s_with_the_ca_filled_in(helm: Path, tmp_path: Path) -> None:
    ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    (tmp_path / "ca.crt").write_text(ca)
    result = template(
        helm,
        tmp_path,
        "--set",
        "webhook.enabled=false",
        "--set",
        "registration.enabled=true",
        "--set-file",
        f"registration.caBundle={tmp_path / 'ca.crt'}",
        bundle=None,
    )
    charts = objects(result)[("ValidatingWebhookConfiguration", "fedgate")]["webhooks"]
    deploys = yaml.safe_load(REGISTRATION.read_text())["webhooks"]
    assert [h["name"] for h in charts] == [h["name"] for h in deploys]
    assert len(charts) == 2  # the kinds fedgate judges; any kind's conflict-resolution annotation
    for chart, deploy in zip(charts, deploys, strict=True):
        assert base64.b64decode(chart["clientConfig"].pop("caBundle")).decode() == ca
        assert chart.pop("clientConfig") == {
            "url": "https://fedgate-webhook.fedgate-system.svc:443/validate"
        }
        deploy.pop("clientConfig")
        assert chart == deploy  # rules, selectors, conditions, timeout: one list, two installers


def test_the_generated_certificate_is_signed_by_the_ca_it_registers(
    helm: Path, tmp_path: Path
) -> None:
    from cryptography import x509  # noqa: PLC0415 - a test extra (trustme's)

    host = objects(template(helm, tmp_path))
    data = host[("Secret", "fedgate-webhook-tls")]["data"]
    ca = x509.load_pem_x509_certificate(base64.b64decode(data["ca.crt"]))
    cert = x509.load_pem_x509_certificate(base64.b64decode(data["tls.crt"]))
    cert.verify_directly_issued_by(ca)
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "fedgate-webhook.fedgate-system.svc" in names.get_values_for_type(x509.DNSName)


def test_cert_manager_issues_the_certificate_instead(helm: Path, tmp_path: Path) -> None:
    host = objects(template(helm, tmp_path, "--set", "tls.mode=certManager"))
    assert ("Secret", "fedgate-webhook-tls") not in host
    certificate = host[("Certificate", "fedgate-webhook")]["spec"]
    assert certificate["secretName"] == "fedgate-webhook-tls"
    assert certificate["dnsNames"][0] == "fedgate-webhook.fedgate-system.svc"
    assert host[("Certificate", "fedgate-webhook-ca")]["spec"]["isCA"] is True


@pytest.mark.parametrize(
    ("values", "bundle", "message"),
    [
        pytest.param((), None, "no policy bundle: run `fedgate bundle", id="no-bundle"),
        pytest.param(
            (), "kind: Secret\nmetadata: {name: x}\n", "bundle.manifest is not a ConfigMap",
            id="not-a-configmap",
        ),
        pytest.param(
            (), BUNDLE.replace("namespace: fedgate-system", "namespace: other"),
            "bundle.manifest is for namespace other, the release is in fedgate-system",
            id="bundle-elsewhere",
        ),
        pytest.param(
            ("--set", "registration.enabled=true"), BUNDLE, "registration.caBundle is empty",
            id="registration-without-ca",
        ),
        pytest.param(
            ("--set", "tls.mode=openssl"), BUNDLE,
            'tls.mode "openssl" is not one of certManager, generated, secret', id="tls-mode",
        ),
    ],
)  # fmt: skip
def test_what_cannot_work_is_refused_with_the_way_out(
    helm: Path, tmp_path: Path, values: tuple[str, ...], bundle: str | None, message: str
) -> None:
    result = template(helm, tmp_path, *values, bundle=bundle)
    assert result.returncode != 0
    assert message in result.stderr, result.stderr


def test_an_existing_bundle_configmap_is_mounted(helm: Path, tmp_path: Path) -> None:
    host = objects(template(helm, tmp_path, "--set", "bundle.existingConfigMap=ours", bundle=None))
    assert ("ConfigMap", "fedgate-policies") not in host
    volumes = host[("Deployment", "fedgate-webhook")]["spec"]["template"]["spec"]["volumes"]
    assert {"name": "policies", "configMap": {"name": "ours"}} in volumes

"""The spec loader: every problem located and reported; no input crashes it."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.spec.load import parse_specs
from webhook.base.errors import SpecError

HEAD = """\
apiVersion: fedgate.dev/v1alpha1
kind: App
metadata: {name: app, namespace: platform-demo}
spec:
  tenant: team-a
  image: registry.example.com/platform/app:1.0
"""


def errors(body: str) -> list[str]:
    with pytest.raises(SpecError) as caught:
        parse_specs(HEAD + body, "app.yaml")
    return [f.render() for f in caught.value.findings]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            "  placement: {clusters: [cluster-a], clusterLabels: {a: b}}\n",
            "app.yaml:7: spec.placement: give clusters or clusterLabels, not both",
            id="both-targets",
        ),
        pytest.param(
            "  placement: {}\n",
            "app.yaml:7: spec.placement: give clusters (a list of names) or "
            "clusterLabels (labels to match)",
            id="no-target",
        ),
        pytest.param(
            "  placement: {clusters: [a], weights: {a: 1}}\n",
            "app.yaml:7: spec.placement.weights: weights apply only with replicas: Divided",
            id="weights-duplicated",
        ),
        pytest.param(
            "  placement: {clusters: [a], replicas: Divided, weights: {a: 0}}\n",
            "app.yaml:7: spec.placement.weights.a: must be at least 1, not 0",
            id="zero-weight",
        ),
        pytest.param(
            "  placement: {clusters: [a]}\n  autoscaling: {owner: git, maxReplicas: 3}\n",
            "app.yaml:8: spec.autoscaling.maxReplicas: applies only with owner: "
            "federated-hpa or member-hpa",
            id="bounds-with-git",
        ),
        pytest.param(
            "  placement: {clusters: [a]}\n  autoscaling: {owner: federated-hpa}\n",
            "app.yaml:8: spec.autoscaling: maxReplicas is required with owner: federated-hpa",
            id="hpa-without-max",
        ),
        pytest.param(
            "  placement: {clusters: [a]}\n"
            "  autoscaling: {owner: member-hpa, minReplicas: 5, maxReplicas: 2}\n",
            "app.yaml:8: spec.autoscaling.maxReplicas: must be at least minReplicas (5)",
            id="max-below-min",
        ),
        pytest.param(
            "  placement: {clusters: [a]}\n  failover: {purge: sometimes}\n",
            "app.yaml:8: spec.failover.purge: 'sometimes' is not one of graceful, direct, never",
            id="bad-purge",
        ),
        pytest.param(
            "  placement: {clusters: [a]}\n  resources: {requests: {cpu: lots}}\n",
            "app.yaml:8: spec.resources.requests.cpu: 'lots' is not a quantity "
            "(examples: 250m, 1, 1.5, 512Mi, 2Gi, 1e3)",
            id="bad-quantity",
        ),
        pytest.param(
            "  placement: {clusters: [a]}\n  overrides: [{clusters: [a]}]\n",
            "app.yaml:8: spec.overrides[0]: this override changes nothing: add "
            "imageRegistry, labels, ...",
            id="empty-override",
        ),
        pytest.param(
            "  placement: {clusters: [a]}\n"
            "  overrides: [{plaintext: [{path: spec, operator: add, value: 1}]}]\n",
            "app.yaml:8: spec.overrides[0].plaintext[0].path: 'spec' is not valid: a "
            "JSON pointer like /spec/x",
            id="bad-pointer",
        ),
        pytest.param(
            "  placement: {clusters: [a]}\n  labels: {app: 'has space'}\n",
            "app.yaml:8: spec.labels.app: 'has space': label values are at most 63 "
            "letters, digits, '-', '_' or '.'",
            id="bad-label",
        ),
        pytest.param(
            "  placement: {clusters: [a]}\n  replicas: Divided\n",
            "app.yaml:8: spec.replicas: is the replica count; Divided is a value of "
            "spec.placement.replicas: did you mean to indent it under placement:?",
            id="dedented-replica-mode",
        ),
        pytest.param(
            "  placement: {clusters: [a]}\n  autoscaling: {owner: federated-hpa, maxReplicas: 3}\n"
            "  replicas: Duplicated\n",
            "app.yaml:9: spec.replicas: is the replica count; Duplicated is a value of "
            "spec.placement.replicas: did you mean to indent it under placement:?",
            id="dedented-replica-mode-with-autoscaler",
        ),
        pytest.param(
            "  placement: {clusters: [a]}\n  weights: {a: 1}\n",
            "app.yaml:8: spec.weights: unknown key 'weights' here: did you mean "
            "spec.placement.weights?",
            id="dedented-weights",
        ),
    ],
)
def test_problem_is_located(body: str, expected: str) -> None:
    assert expected in errors(body)


def test_defaults() -> None:
    [app] = parse_specs(HEAD + "  placement: {clusters: [cluster-a]}\n  failover: {}\n", "a.yaml")
    assert (app.replicas, app.placement.replicas, app.autoscaling.owner) == (1, "Duplicated", "git")
    assert app.failover is not None
    assert (
        app.failover.purge_mode,
        app.failover.toleration_seconds,
        app.failover.grace_period_seconds,
    ) == ("Gracefully", 300, 600)


def test_several_apps_per_file_and_all_their_errors() -> None:
    text = HEAD + "  placement: {clusters: [a]}\n---\n" + HEAD.replace("name: app", "name: B")
    with pytest.raises(SpecError) as caught:
        parse_specs(text, "two.yaml")
    messages = [f.render() for f in caught.value.findings]
    assert any(m.startswith("two.yaml:11: metadata.name: 'B' is not valid") for m in messages)
    assert any(m.startswith("two.yaml:12: spec: placement is required") for m in messages)


yaml_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 70000)
    | st.text(max_size=12)
    | st.sampled_from(["Divided", "member-hpa", "cluster-a", "/spec/replicas", "250m"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "placement",
                    "clusters",
                    "weights",
                    "replicas",
                    "owner",
                    "overrides",
                    "plaintext",
                    "path",
                    "autoscaling",
                    "failover",
                    "purge",
                    "x",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=15,
)


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=200)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "replicas",
                "placement",
                "ports",
                "resources",
                "env",
                "envFrom",
                "overrides",
                "autoscaling",
                "failover",
                "stateful",
                "labels",
                "readinessProbe",
            ]
        ),
        yaml_values,
        max_size=6,
    )
)
def test_no_spec_crashes_the_loader(spec: dict[str, object]) -> None:
    body = "".join(f"  {key}: {json.dumps(value)}\n" for key, value in spec.items())
    try:
        parse_specs(HEAD + body, "fuzz.yaml")
    except SpecError as exc:
        assert all(f.file == "fuzz.yaml" and f.line >= 1 for f in exc.findings)


@given(st.text(max_size=300))
def test_no_text_crashes_the_loader(text: str) -> None:
    try:
        parse_specs(text, "fuzz.yaml")
    except SpecError as exc:
        assert exc.findings


def test_a_trailing_newline_does_not_sneak_past_a_pattern() -> None:
    text = HEAD.replace("name: app,", '"name": "app\\n",') + "  placement: {clusters: [a]}\n"
    with pytest.raises(SpecError, match=r"metadata.name: 'app\\n' is not valid"):
        parse_specs(text, "app.yaml")

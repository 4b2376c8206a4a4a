"""Pods as an attacker writes them, for the Pod Security oracle: every field Kubernetes'
baseline checks read (host namespaces and ports, hostPath, privileged, capabilities, seccomp,
AppArmor, SELinux, procMount, Windows host process, sysctls, probe and lifecycle hosts, the
AppArmor and seccomp annotations), at pod and container level, in containers, init containers
and ephemeral containers, with the values that sit on the edges: the allowed ones, the
forbidden ones, empty strings, other spellings, an empty profile without a type, a null, a
field spelled in another case (the API server drops it), the user-namespace relaxation.

Values keep their schema types (a string where Kubernetes has a string): an object of the wrong
type is refused by the API server before any admission runs.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

Draw = Any

APPARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"

NAMES = st.sampled_from(["web", "init", "debug", "sidecar", "a", "web-1"])
PROFILE_TYPES = st.sampled_from(
    ["RuntimeDefault", "Localhost", "Unconfined", "runtimedefault", "RuntimeDefault ", "", "x",
     "Runtime\u200bDefault", "\uff2cocalhost"]
)  # fmt: skip
SELINUX_TYPES = st.sampled_from(
    ["container_t", "container_init_t", "container_kvm_t", "container_engine_t", "",
     "spc_t", "Container_t", "container_t "]
)  # fmt: skip
SHORT = st.sampled_from(["", "system_u", "object_r", " ", "s0:c1"])
PROC_MOUNTS = st.sampled_from(["Default", "Unmasked", "default", ""])
CAPABILITIES = st.sampled_from(
    ["NET_BIND_SERVICE", "CHOWN", "KILL", "SYS_CHROOT", "AUDIT_WRITE", "NET_RAW", "SYS_ADMIN",
     "CAP_CHOWN", "chown", "ALL", ""]
)  # fmt: skip
SYSCTLS = st.sampled_from(
    ["kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
     "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start",
     "net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time",
     "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes",
     "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "kernel.msgmax", "net.core.somaxconn",
     "net.ipv4.tcp_rmem ", "Net.ipv4.tcp_rmem", "net/ipv4/tcp_rmem", "", "net.ipv4.tcp_rmem\u200b"]
)  # fmt: skip
HOST_PORTS = st.sampled_from([0, 0, 1, 80, 8080, 65535, -1])
HOSTS = st.sampled_from(["", "", "10.0.0.1", "localhost", "metadata.google.internal", " "])
ANNOTATION_VALUES = st.sampled_from(
    ["runtime/default", "localhost/my-profile", "localhost/", "unconfined", "", "docker/default",
     "Runtime/Default", "localhost", "runtime/default "]
)  # fmt: skip


def _maybe(draw: Draw, out: dict[str, Any], key: str, values: st.SearchStrategy[Any]) -> None:
    """Sometimes set ``key``: to a value, rarely to null (absent once the API server decodes
    the Pod)."""
    choice = draw(st.integers(0, 9))
    if choice < 4:
        out[key] = draw(values)
    elif choice == 4:
        out[key] = None


def _profile(draw: Draw, types: st.SearchStrategy[str]) -> dict[str, Any]:
    profile: dict[str, Any] = {}
    if draw(st.integers(0, 5)):  # an empty profile (no type) too
        profile["type"] = draw(types)
    if draw(st.booleans()):
        profile["localhostProfile"] = "profiles/p.json"
    return profile


def _selinux(draw: Draw) -> dict[str, Any]:
    options: dict[str, Any] = {}
    _maybe(draw, options, "type", SELINUX_TYPES)
    _maybe(draw, options, "user", SHORT)
    _maybe(draw, options, "role", SHORT)
    _maybe(draw, options, "level", SHORT)
    return options


def _windows(draw: Draw) -> dict[str, Any]:
    options: dict[str, Any] = {}
    _maybe(draw, options, "hostProcess", st.booleans())
    _maybe(draw, options, "runAsUserName", st.sampled_from(["NT AUTHORITY\\SYSTEM", "app"]))
    return options


@st.composite
def security_context(draw: Draw, pod: bool) -> dict[str, Any]:
    context: dict[str, Any] = {}
    choice = draw(st.integers(0, 9))
    if choice < 4:
        context["seccompProfile"] = _profile(draw, PROFILE_TYPES)
    elif choice == 4:
        context["seccompProfile"] = None
    if draw(st.integers(0, 2)) == 0:
        context["appArmorProfile"] = _profile(draw, PROFILE_TYPES)
    if draw(st.integers(0, 2)) == 0:
        context["seLinuxOptions"] = _selinux(draw)
    if draw(st.integers(0, 3)) == 0:
        context["windowsOptions"] = _windows(draw)
    _maybe(draw, context, "runAsUser", st.sampled_from([0, 1000]))
    if pod:
        if draw(st.integers(0, 2)) == 0:
            context["sysctls"] = draw(
                st.lists(
                    st.builds(
                        lambda name, keep: {"name": name, "value": "1"} if keep else {"value": "1"},
                        SYSCTLS,
                        st.integers(0, 9).map(bool),
                    ),
                    max_size=3,
                )
            )
        return context
    _maybe(draw, context, "privileged", st.booleans())
    _maybe(draw, context, "allowPrivilegeEscalation", st.booleans())
    _maybe(draw, context, "procMount", PROC_MOUNTS)
    if draw(st.integers(0, 2)) == 0:
        context["capabilities"] = {"add": draw(st.lists(CAPABILITIES, max_size=3))}
        if draw(st.booleans()):
            context["capabilities"]["drop"] = ["ALL"]
    if draw(st.integers(0, 29)) == 0:
        context["Privileged"] = True  # another case: the API server drops it
    return context


@st.composite
def handler(draw: Draw) -> dict[str, Any]:
    out: dict[str, Any] = {}
    kind = draw(st.sampled_from(["httpGet", "tcpSocket", "exec", "both"]))
    if kind in ("httpGet", "both"):
        out["httpGet"] = {"port": 8080, "path": "/healthz"}
        _maybe(draw, out["httpGet"], "host", HOSTS)
    if kind in ("tcpSocket", "both"):
        out["tcpSocket"] = {"port": 8080}
        _maybe(draw, out["tcpSocket"], "host", HOSTS)
    if kind == "exec":
        out["exec"] = {"command": ["true"]}
    return out


@st.composite
def container(draw: Draw) -> dict[str, Any]:
    out: dict[str, Any] = {"name": draw(NAMES), "image": "registry.example.com/team-a/app:1.0"}
    if draw(st.booleans()):
        out["securityContext"] = draw(security_context(pod=False))
    if draw(st.integers(0, 2)) == 0:
        out["ports"] = [
            {"containerPort": 8080, **({} if port is None else {"hostPort": port})}
            for port in draw(st.lists(HOST_PORTS | st.none(), min_size=1, max_size=2))
        ]
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        if draw(st.integers(0, 5)) == 0:
            out[probe] = draw(handler())
    if draw(st.integers(0, 4)) == 0:
        lifecycle: dict[str, Any] = {}
        for hook in ("postStart", "preStop"):
            if draw(st.booleans()):
                lifecycle[hook] = draw(handler())
        out["lifecycle"] = lifecycle
    return out


@st.composite
def annotations(draw: Draw, names: list[str]) -> dict[str, str]:
    keys = st.sampled_from(
        [
            *(APPARMOR_PREFIX + n for n in names),
            APPARMOR_PREFIX + "not-a-container",
            APPARMOR_PREFIX,
            SECCOMP_POD,
            *(SECCOMP_PREFIX + n for n in names),
            "Container.apparmor.security.beta.kubernetes.io/web",
            "example.com/note",
        ]
    )
    return draw(st.dictionaries(keys, ANNOTATION_VALUES, max_size=3))


@st.composite
def pod(draw: Draw) -> dict[str, Any]:
    """``{"metadata": ..., "spec": ...}``: a Pod's, or a template's."""
    spec: dict[str, Any] = {"containers": draw(st.lists(container(), min_size=1, max_size=2))}
    for field in ("initContainers", "ephemeralContainers"):
        if draw(st.integers(0, 2)) == 0:
            spec[field] = draw(st.lists(container(), min_size=1, max_size=2))
    for field in ("hostNetwork", "hostPID", "hostIPC", "hostUsers"):
        _maybe(draw, spec, field, st.booleans())
    if draw(st.booleans()):
        spec["securityContext"] = draw(security_context(pod=True))
    if draw(st.integers(0, 3)) == 0:
        spec["volumes"] = draw(
            st.lists(
                st.sampled_from(
                    [
                        {"name": "tmp", "emptyDir": {}},
                        {"name": "root", "hostPath": {"path": "/"}},
                        {"name": "empty", "hostPath": {}},
                        {"name": "cfg", "configMap": {"name": "web"}},
                    ]
                ),
                max_size=2,
            )
        )
    if draw(st.integers(0, 19)) == 0:
        spec["HostNetwork"] = True  # another case: the API server drops it
    names = [c["name"] for f in ("initContainers", "containers", "ephemeralContainers")
             for c in spec.get(f, [])]  # fmt: skip
    metadata: dict[str, Any] = {"labels": {"app": "web"}}
    if draw(st.integers(0, 2)) == 0:
        metadata["annotations"] = draw(annotations(names))
    return {"metadata": metadata, "spec": spec}


KINDS = (
    ("v1", "Pod"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("apps/v1", "ReplicaSet"),
    ("v1", "ReplicationController"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
)


def wrap(api_version: str, kind: str, template: dict[str, Any], namespace: str) -> dict[str, Any]:
    """The object of ``kind`` that runs ``template`` (a Pod is the template itself)."""
    metadata = {"name": "web", "namespace": namespace}
    if kind == "Pod":
        return {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {**template["metadata"], **metadata},
            "spec": template["spec"],
        }
    selector = {"matchLabels": {"app": "web"}}
    if kind == "CronJob":
        job = {"spec": {"template": template}}
        spec: dict[str, Any] = {"schedule": "0 3 * * *", "jobTemplate": job}
    elif kind == "Job":
        spec = {"template": template}
    elif kind == "ReplicationController":
        spec = {"selector": {"app": "web"}, "template": template}
    else:
        spec = {"selector": selector, "template": template}
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata, "spec": spec}

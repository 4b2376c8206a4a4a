"""Kubernetes' URL library (``isURL``, ``url()`` and its getters, Go's ``net/url``) against the
port in ``webhook/engine/cel/urllib_go.py``: the CEL oracle (k8s.io/apiserver v0.34.3 built
with this machine's Go) answers strings drawn from URL-shaped pieces (schemes, opaque
references, IP literals with zones, user information, escapes, ports, queries, fragments), and
both backends must answer as it does, every run."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracles.build import Conversation
from tests.oracles.differential import compare
from webhook.engine.cel.backend import Backend
from webhook.engine.cel.engines import BACKENDS, make_backend

pytestmark = pytest.mark.slow  # builds and runs a Go oracle

READ = (
    "isURL(object.s) ? [url(object.s).getScheme(), url(object.s).getHost(), "
    "url(object.s).getHostname(), url(object.s).getPort(), url(object.s).getEscapedPath(), "
    "url(object.s).getQuery()] : []"
)
"""What a rule can read of a string as a URL (``url()`` may still fail where ``isURL`` holds:
a fragment badly escaped)."""

PIECES = [
    *("http:", "https:", "HTTP:", "mongodb:", "example.com:", "fe80:", "a+b.c-d:", "1a:", ":"),
    *("//", "///", "/", "*", "?", "#", "@", ":", "::", "[", "]", "%", "%25", "%41", "%c3%a9"),
    *("%zz", "%2", "%ff", "%20", "+", " ", "a", "Z", "é", "8080", "0", "user", "u:p", "a@b"),
    *("[fe80::1]", "[fe80::1%25en0]", "[::1]:80", "[1.2.3.4]", "[::ffff:1.2.3.4]", "[x]"),
    *("example.com", "10.0.0.1", "a:1,b:2", "x=1&y=2", "k=%zz", "a;b", "!$&'()*,;=", "~_.-"),
]


def url_text() -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(PIECES), max_size=8).map("".join)


@pytest.fixture(scope="module")
def backends() -> dict[str, Backend]:
    return {name: make_backend(name) for name in BACKENDS}


def _agree(text: str, kubernetes_cel: Conversation, backends: dict[str, Backend]) -> None:
    for expression in ("isURL(object.s)", READ, "url(object.s)"):
        case: dict[str, Any] = {"expr": expression, "vars": {"object": {"s": text}}}
        answer = kubernetes_cel.ask(case)
        for name, engine in backends.items():
            verdict = compare(engine, case, answer)
            assert verdict.outcome == "same", (name, text, expression, verdict.ours, answer)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=url_text())
def test_urls_read_as_kubernetes_reads_them(
    text: str, kubernetes_cel: Conversation, backends: dict[str, Backend]
) -> None:
    _agree(text, kubernetes_cel, backends)


GO = [
    # Go 1.26's url.ParseRequestURI, as the oracle answered: a scheme and a rootless rest is
    # an opaque reference, however the rest looks
    ("example.com:8080", True),
    ("fe80::", True),
    ("mailto:a@b", True),
    ("a+b.c-d:x y", True),
    ("1a:x", False),  # a scheme starts with a letter: no scheme, then not a request URI
    (":x", False),  # missing protocol scheme
    ("example.com", False),
    ("/a b", True),
    ("*", True),
    ("", False),
    # the host: http and https refuse a second colon, other schemes read the last one
    ("http://a:b:c/", False),
    ("http://http:http:", True),  # the port after the last colon, empty: Kubernetes' Go
    ("mongodb://a:1,b:2/", True),
    ("http://a:80/", True),
    ("http://a:8x/", False),
    # an IP literal is an IPv6 address (a zone escaped as %25), not IPv4
    ("http://[fe80::1%25en0]:80/", True),
    ("http://[1.2.3.4]/", False),
    ("http://[::ffff:1.2.3.4]/", True),
    ("http://x[/", False),
    # escapes in a host only for bytes beyond ASCII (and %25); a space is no host character
    ("http://a%41/", False),
    ("http://a%c3%a9/", True),
    ("http://a b/", False),
    # user information: what RFC 3986 allows, and @
    ("http://us er@a/", False),
    ("http://u:p@ss@a/", True),
    # the query is not checked; the fragment is part of the path or query here
    ("http://a/?q#%zz", True),
    ("http://a/b#frag%zz", False),
]
"""isURL's answers, as Kubernetes gives them (checked against the oracle below)."""


@pytest.mark.parametrize(("text", "expected"), GO, ids=[t or "empty" for t, _ in GO])
def test_what_go_answers(
    text: str, expected: bool, kubernetes_cel: Conversation, backends: dict[str, Backend]
) -> None:
    answer = kubernetes_cel.ask({"expr": "isURL(object.s)", "vars": {"object": {"s": text}}})
    assert answer["value"] == ["bool", expected], answer
    _agree(text, kubernetes_cel, backends)

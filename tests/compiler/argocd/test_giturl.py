"""Argo CD's NormalizeGitURL. SAME_URL is ported from argoproj/argo-cd util/git/git_test.go
(TestSameURL, at 37ee009), through SameURL as util/git/git.go defines it; the other answers
are Go's (test_go_oracle.py holds hundreds more)."""

from __future__ import annotations

import pytest

from compiler.argocd.giturl import normalize_git_url


def _same_url(left: str, right: str) -> bool:
    """``SameURL``: both normalize (an invalid one stays as it is) to one non-empty URL."""
    left, right = normalize_git_url(left) or left, normalize_git_url(right) or right
    return left != "" and right != "" and left == right


SAME_URL = {
    "git@GITHUB.com:argoproj/test": "git@github.com:argoproj/test.git",
    "git@GITHUB.com:argoproj/test.git": "git@github.com:argoproj/test.git",
    "git@GITHUB.com:test": "git@github.com:test.git",
    "git@GITHUB.com:test.git": "git@github.com:test.git",
    "https://GITHUB.com/argoproj/test": "https://github.com/argoproj/test.git",
    "https://GITHUB.com/argoproj/test.git": "https://github.com/argoproj/test.git",
    "https://github.com/FOO": "https://github.com/foo",
    "https://github.com/TEST": "https://github.com/TEST.git",
    "https://github.com/TEST.git": "https://github.com/TEST.git",
    "https://github.com:4443/TEST": "https://github.com:4443/TEST.git",
    "https://github.com:4443/TEST.git": "https://github.com:4443/TEST",
    "ssh://git@GITHUB.com/argoproj/test": "git@github.com:argoproj/test.git",
    "ssh://git@GITHUB.com/argoproj/test.git": "git@github.com:argoproj/test.git",
    "ssh://git@GITHUB.com/test.git": "git@github.com:test.git",
    "ssh://git@github.com/test": "git@github.com:test.git",
    " https://github.com/argoproj/test ": "https://github.com/argoproj/test.git",
    "\thttps://github.com/argoproj/test\n": "https://github.com/argoproj/test.git",
    "https://1234.visualstudio.com/myproj/_git/myrepo": (
        "https://1234.visualstudio.com/myproj/_git/myrepo"
    ),
    "https://dev.azure.com/1234/myproj/_git/myrepo": "https://dev.azure.com/1234/myproj/_git/myrepo",
}


@pytest.mark.parametrize(("left", "right"), [pytest.param(*p, id=p[0]) for p in SAME_URL.items()])
def test_same_url(left: str, right: str) -> None:
    assert _same_url(left, right)


@pytest.mark.parametrize(
    ("url", "normalized"),
    [
        pytest.param("git@github.com:Org/Repo.git", "git@github.com/org/repo", id="scp"),
        pytest.param(
            "https://github.com/org/{a,b}-*", "https://github.com/org/%7Ba,b%7D-%2A", id="braces"
        ),
        pytest.param("https://github.com/org/%zz", "", id="bad escape"),
        pytest.param("https://host:abc/org/repo", "", id="bad port"),
        pytest.param("https://h/ΑΣ", "https://h/%CE%B1%CF%83", id="no final sigma"),
        pytest.param(
            "\x1chttps://github.com/org/repo", "", id="a byte Python's strip() would drop"
        ),
    ],
)
def test_go_answers(url: str, normalized: str) -> None:
    assert normalize_git_url(url) == normalized

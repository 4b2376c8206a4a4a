"""gobwas/glob as Argo CD's util/glob.Match uses it.

The gobwas table is ported from github.com/gobwas/glob glob_test.go (TestGlob, commit e7a84e9);
the Argo CD cases from argoproj/argo-cd pkg/apis/application/v1alpha1/types_test.go
(TestGlobMatch) and reposerver's include/exclude tests. The quirks and the answers of the real
Go code on thousands more cases are in test_go_oracle.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.argocd.glob import GlobPanic, match, valid

ALL = "[a-z][!a-x]*cat*[h][!b]*eyes*"
ALTERNATIVES = "{https://*.google.*,*yandex.*,*yahoo.*,*mail.ru}"
SUFFIX = "{https://*gobwas.com,http://exclude.gobwas.com}"
HARD = "{abc*[a-c]def,abc?[d-g]def,abc[zte]?def}"
LITE = "{abc*def,abc?def,abc[zte]def}"

GOBWAS = [
    (True, "* ?at * eyes", "my cat has very bright eyes", ""),
    (True, "", "", ""),
    (False, "", "b", ""),
    (True, "*ä", "åä", ""),
    (True, "abc", "abc", ""),
    (True, "a*c", "abc", ""),
    (True, "a*c", "a12345c", ""),
    (True, "a?c", "a1c", ""),
    (True, "a.b", "a.b", "."),
    (True, "a.*", "a.b", "."),
    (True, "a.**", "a.b.c", "."),
    (True, "a.?.c", "a.b.c", "."),
    (True, "a.?.?", "a.b.c", "."),
    (True, "?at", "cat", ""),
    (True, "?at", "fat", ""),
    (True, "*", "abc", ""),
    (True, r"\*", "*", ""),
    (True, "**", "a.b.c", "."),
    (False, "?at", "at", ""),
    (False, "?at", "fat", "f"),
    (False, "a.*", "a.b.c", "."),
    (False, "a.?.c", "a.bb.c", "."),
    (False, "*", "a.b.c", "."),
    (True, "*test", "this is a test", ""),
    (True, "this*", "this is a test", ""),
    (True, "*is *", "this is a test", ""),
    (True, "*is*a*", "this is a test", ""),
    (True, "**test**", "this is a test", ""),
    (True, "**is**a***test*", "this is a test", ""),
    (False, "*is", "this is a test", ""),
    (False, "*no*", "this is a test", ""),
    (True, "[!a]*", "this is a test3", ""),
    (True, "*abc", "abcabc", ""),
    (True, "**abc", "abcabc", ""),
    (True, "???", "abc", ""),
    (True, "?*?", "abc", ""),
    (True, "?*?", "ac", ""),
    (False, "sta", "stagnation", ""),
    (True, "sta*", "stagnation", ""),
    (False, "sta?", "stagnation", ""),
    (False, "sta?n", "stagnation", ""),
    (True, "{abc,def}ghi", "defghi", ""),
    (True, "{abc,abcd}a", "abcda", ""),
    (True, "{a,ab}{bc,f}", "abc", ""),
    (True, "{*,**}{a,b}", "ab", ""),
    (False, "{*,**}{a,b}", "ac", ""),
    (True, "/{rate,[a-z][a-z][a-z]}*", "/rate", ""),
    (True, "/{rate,[0-9][0-9][0-9]}*", "/rate", ""),
    (True, "/{rate,[a-z][a-z][a-z]}*", "/usd", ""),
    (True, "{*.google.*,*.yandex.*}", "www.google.com", "."),
    (True, "{*.google.*,*.yandex.*}", "www.yandex.com", "."),
    (False, "{*.google.*,*.yandex.*}", "yandex.com", "."),
    (False, "{*.google.*,*.yandex.*}", "google.com", "."),
    (True, "{*.google.*,yandex.*}", "www.google.com", "."),
    (True, "{*.google.*,yandex.*}", "yandex.com", "."),
    (False, "{*.google.*,yandex.*}", "www.yandex.com", "."),
    (False, "{*.google.*,yandex.*}", "google.com", "."),
    (True, "*//{,*.}example.com", "https://www.example.com", ""),
    (True, "*//{,*.}example.com", "http://example.com", ""),
    (False, "*//{,*.}example.com", "http://example.com.net", ""),
    (True, ALL, "my cat has very bright eyes", ""),
    (False, ALL, "my dog has very bright eyes", ""),
    (True, "google.com", "google.com", ""),
    (False, "google.com", "gobwas.com", ""),
    (True, "https://*.google.*", "https://account.google.com", ""),
    (False, "https://*.google.*", "https://google.com", ""),
    (True, ALTERNATIVES, "http://yahoo.com", ""),
    (False, ALTERNATIVES, "http://google.com", ""),
    (True, SUFFIX, "https://safe.gobwas.com", ""),
    (False, SUFFIX, "http://safe.gobwas.com", ""),
    (True, SUFFIX, "http://exclude.gobwas.com", ""),
    (True, HARD, "abczqdef", ""),
    (True, LITE, "abczdef", ""),
    (True, "abc*", "abcdef", ""),
    (False, "abc*", "af", ""),
    (True, "*def", "abcdef", ""),
    (False, "*def", "af", ""),
    (True, "ab*ef", "abcdef", ""),
    (False, "ab*ef", "af", ""),
]


@pytest.mark.parametrize(
    ("expected", "pattern", "text", "separators"),
    [pytest.param(*case, id=f"{case[1]!r}~{case[2]!r}") for case in GOBWAS],
)
def test_gobwas_table(expected: bool, pattern: str, text: str, separators: str) -> None:
    assert match(pattern, text, separators) is expected


# Argo CD's directory include/exclude: relative paths, no separators, so `*` crosses `/`.
INCLUDES = [
    (True, "{platform-demo/*}", "platform-demo/demo-http/deployment.yaml"),
    (True, "{platform-demo/*}", "platform-demo/extra/sneaky-pp.yaml"),
    (False, "{platform-demo/*}", "platform-demo-dev/x/deployment.yaml"),
    (False, "{platform-demo/*}", "argocd/team-a-application.yaml"),
    (True, "{payments/*,platform-demo/*}", "payments/a/b.yaml"),
    (True, "*.yaml", "a/b/c.yaml"),
    (False, "*.yaml", "a/b/c.json"),
    (True, "{*.yml,*.yaml}", "dir/x.yml"),
    (True, "config.json", "config.json"),
    (False, "config.json", "sub/config.json"),
]


@pytest.mark.parametrize(
    ("expected", "pattern", "path"), [pytest.param(*c, id=f"{c[1]}~{c[2]}") for c in INCLUDES]
)
def test_directory_globs_cross_slashes(expected: bool, pattern: str, path: str) -> None:
    assert match(pattern, path) is expected


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param("[]", id="empty class"),
        pytest.param("[!]", id="empty negated class"),
        pytest.param("[a-", id="unclosed range"),
        pytest.param("[abc", id="unclosed class"),
        pytest.param("[z-a]", id="reversed range"),
    ],
)
def test_patterns_gobwas_refuses_match_nothing(pattern: str) -> None:
    assert not valid(pattern)
    assert not match(pattern, "a")
    assert not match(pattern, "")


def test_an_unclosed_alternative_closes_at_the_end_as_in_gobwas() -> None:
    assert match("{a,b", "b")
    assert not match("{a,b", "{a,b")


def test_text_outside_alternatives_keeps_commas_and_braces() -> None:
    assert match("a,b}", "a,b}")
    assert match(r"\{x\}", "{x}")


# Go's answers (recorded with the Go harness of go_oracle/): what a reader of an AppProject
# would not guess, and what compile therefore checks with the port rather than with intuition.
QUIRKS = [
    (False, "{team-*,default}-ns", "team-a-ns", "a first alternative of varying length"),
    (True, "kube-*-system", "kube-system", "prefix and suffix may overlap"),
    (True, "?", "", "a lone ? matches the empty string"),
    (False, "prod-?é", "prod-aé", "fixed-length runs are sliced by bytes"),
    (True, "\x00", "", "NUL ends the pattern"),
    (True, "a\x00b", "ab", "NUL inside a text is dropped"),
    (True, "[!ab][!ab]", "xa", "two negated lists become 'does not contain ab'"),
    (False, "*{", "x", "an unclosed brace compiles to nothing at the end of a BTree"),
]


@pytest.mark.parametrize(
    ("expected", "pattern", "text", "why"), [pytest.param(*q, id=q[3]) for q in QUIRKS]
)
def test_gobwas_quirks_argocd_inherits(expected: bool, pattern: str, text: str, why: str) -> None:
    assert match(pattern, text) is expected, why


def test_a_pattern_gobwas_panics_on_raises_glob_panic_naming_it() -> None:
    with pytest.raises(GlobPanic) as raised:
        match("prod-{}", "prod-")
    assert raised.value.reason == "runtime error: slice bounds out of range [:6] with length 5"
    with pytest.raises(GlobPanic) as raised:
        match(".{", ".")
    assert str(raised.value) == (
        "Argo CD would crash on the pattern '.{' (matching '.', gobwas/glob panics: runtime "
        "error: slice bounds out of range [:2] with length 1), so it would never reconcile the "
        "Application"
    )


def test_u_fffd_in_a_pattern_is_a_compile_error_so_nothing_matches() -> None:
    assert not valid("a\ufffd")
    assert not match("a\ufffd", "a\ufffd")


_TEXT = st.text(alphabet="ab/.*?[]{},!-\\é\x00", max_size=12)


@settings(max_examples=400, deadline=None)
@given(
    pattern=_TEXT,
    text=st.text(alphabet="ab/.é", max_size=12),
    separators=st.sampled_from(["", "/", "é"]),
)
def test_any_pattern_answers_or_raises_glob_panic(pattern: str, text: str, separators: str) -> None:
    try:
        result = match(pattern, text, separators)
    except GlobPanic as panic:
        assert panic.reason.startswith("runtime error: slice bounds out of range")
        return
    assert result in (True, False)
    if result:
        assert valid(pattern, separators)


@settings(max_examples=300, deadline=None)
@given(literal=st.text(alphabet="abc/.-_é", max_size=20))
def test_a_pattern_without_specials_matches_itself_only(literal: str) -> None:
    assert match(literal, literal)
    assert not match(literal, literal + "x")
    assert not match(literal + "x", literal)


@settings(max_examples=200, deadline=None)
@given(
    pattern=st.lists(st.sampled_from(["*", "**", "a", "b", "?", "{a,b}", "[!a]"]), max_size=60),
    size=st.integers(0, 2000),
)
def test_adversarial_patterns_answer_without_backtracking_blowup(
    pattern: list[str], size: int
) -> None:
    """Repeated stars and alternatives against a long run of one letter: gobwas's matchers
    are not a backtracking regex (bench/argocd_glob.py measures the worst cases)."""
    result = match("".join(pattern) + "c", "a" * size)
    assert result is False

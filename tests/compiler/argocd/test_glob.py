"""gobwas/glob and Go's filepath.Match as Argo CD uses them.

The gobwas table is ported from github.com/gobwas/glob glob_test.go (TestGlob, commit e7a84e9);
the filepath cases from Go's path/filepath match_test.go (matchTests) as far as they apply on
Unix; the Argo CD cases from argoproj/argo-cd pkg/apis/application/v1alpha1/types_test.go
(TestGlobMatch) and reposerver's include/exclude tests.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.argocd.glob import match, path_match, to_regex, valid

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


# Go's path/filepath.Match, as isResourceInList uses it for kinds and groups.
FILEPATH = [
    (True, "abc", "abc"),
    (True, "*", "abc"),
    (True, "*c", "abc"),
    (False, "a*", "ab/c"),
    (True, "a*b*c*d*e*/f", "axbxcxdxe/f"),
    (True, "a*b?c*x", "abxbbxdbxebxczzx"),
    (False, "a*b?c*x", "abxbbxdbxebxczzy"),
    (True, "ab[c]", "abc"),
    (True, "ab[b-d]", "abc"),
    (False, "ab[e-g]", "abc"),
    (False, "ab[^c]", "abc"),
    (False, "ab[^b-d]", "abc"),
    (True, "ab[^e-g]", "abc"),
    (True, "a\\*b", "a*b"),
    (False, "a\\*b", "ab"),
    (True, "a?b", "a☺b"),
    (True, "a[^a]b", "a☺b"),
    (False, "a???b", "a☺b"),
    (True, "[a-\u03b6]*", "\u03b1"),  # Greek zeta, alpha
    (False, "*[a-ζ]", "A"),
    (False, "a?b", "a/b"),
    (False, "a*b", "a/b"),
    (True, "[\\]a]", "]"),
    (True, "[\\-]", "-"),
    (True, "[x\\-]", "x"),
    (False, "[\\-x]", "a"),
    (False, "[]a]", "]"),
    (False, "[-]", "-"),
    (False, "[x-]", "x"),
    (False, "[^bc", "a"),
    (False, "a[", "a"),
    (True, "*x", "xxx"),
    (True, "", ""),
    (True, "*", ""),
]


@pytest.mark.parametrize(
    ("expected", "pattern", "name"), [pytest.param(*c, id=f"{c[1]}~{c[2]}") for c in FILEPATH]
)
def test_go_filepath_match(expected: bool, pattern: str, name: str) -> None:
    assert path_match(pattern, name) is expected


_TEXT = st.text(alphabet="ab/.*?[]{},!-\\", max_size=12)


@settings(max_examples=400, deadline=None)
@given(pattern=_TEXT, text=st.text(alphabet="ab/.", max_size=12))
def test_any_pattern_answers_without_raising(pattern: str, text: str) -> None:
    result = match(pattern, text)
    assert result in (True, False)
    if result:
        assert valid(pattern)


@settings(max_examples=300, deadline=None)
@given(literal=st.text(alphabet="abc/.-_", max_size=20))
def test_a_pattern_without_specials_matches_itself_only(literal: str) -> None:
    assert match(literal, literal)
    assert not match(literal, literal + "x")
    assert re.fullmatch(to_regex(literal), literal, re.DOTALL)

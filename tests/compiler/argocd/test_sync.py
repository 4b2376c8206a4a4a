"""``ArgoCDTree.syncing`` with remembered selections answers as without them: whatever was
remembered, for which Applications, and whatever happened to the cache in between (a JSON
round trip, a tampered entry), the Applications that read a path are those the globs say."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.argocd.glob import GlobPanic
from compiler.argocd.sync import ArgoCDTree, Selections

PATHS = st.sampled_from(
    [
        "rendered/ns-1/a/deployment.yaml",
        "rendered/ns-2/b/service.yml",
        "rendered/ns-1/extra/sneaky-pp.yaml",
        "rendered/ns-3/x.json",
        "rendered/ns-1/a/notes.txt",
        "rendered/top.yaml",
        "rendered/argocd/team-a.yaml",
        "other/ns-1/a.yaml",
        "rendered/ns-10/a.yaml",
        "rendered/.hidden/a.yaml",
        "rendered/ns-1/a/b/c/d.jsonnet",
    ]
)
SOURCES = st.fixed_dictionaries(
    {
        "repoURL": st.just("https://git.example.com/platform.git"),
        "path": st.sampled_from(["rendered", ".", "", "rendered/ns-1", "/abs", "../up", "other"]),
    },
    optional={
        "directory": st.fixed_dictionaries(
            {},
            optional={
                "recurse": st.booleans(),
                "include": st.sampled_from(
                    ["", "*", "{ns-1/*,ns-2/*}", "ns-1/*", "*.yaml", "ns-[12]/*", "{a,b", "*/a/*"]
                ),
                "exclude": st.sampled_from(["", "*.json", "ns-2/*", "{ns-3/*,*.yml}", "[", "*"]),
            },
        )
    },
)
APPLICATIONS = st.lists(
    st.builds(
        lambda name, source: {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": name, "namespace": "argocd"},
            "spec": {"project": "default", "source": source},
        },
        st.sampled_from(["team-a", "team-b", "team-c"]),
        SOURCES,
    ),
    max_size=4,
)


def _answer(tree: ArgoCDTree, path: str) -> Any:
    try:
        return [orjson.dumps(app, option=orjson.OPT_SORT_KEYS) for app in tree.syncing(path)]
    except GlobPanic as panic:
        return ("panic", str(panic))


@settings(max_examples=300, deadline=None)
@given(
    before=APPLICATIONS,
    asked=st.lists(PATHS, max_size=8),
    after=APPLICATIONS,
    same=st.booleans(),
    paths=st.lists(PATHS, min_size=1, max_size=8),
)
def test_remembered_selections_answer_as_the_globs(
    before: list[dict[str, Any]],
    asked: list[str],
    after: list[dict[str, Any]],
    same: bool,
    paths: list[str],
) -> None:
    selections: Selections = {}
    earlier = ArgoCDTree.of(before, selections)
    for path in asked:
        _answer(earlier, path)
    kept = orjson.loads(orjson.dumps(selections))  # as the compile cache keeps them
    applications = before if same else after
    remembered = ArgoCDTree.of(applications, kept)
    fresh = ArgoCDTree.of(applications)
    for path in [*paths, *asked]:
        assert _answer(remembered, path) == _answer(fresh, path), path


@given(applications=APPLICATIONS.filter(bool), paths=st.lists(PATHS, min_size=1, max_size=6))
def test_a_tampered_selection_is_not_believed(
    applications: list[dict[str, Any]], paths: list[str]
) -> None:
    selections: Selections = {}
    tree = ArgoCDTree.of(applications, selections)
    for path in paths:
        _answer(tree, path)
    [key] = selections
    for bad in ([len(applications)], [-1], ["0"], [True], "0", None):
        tampered: Selections = {key: {path: bad for path in paths}}  # type: ignore[misc]
        again = ArgoCDTree.of(applications, tampered)
        for path in paths:
            assert _answer(again, path) == _answer(ArgoCDTree.of(applications), path)


def test_an_application_changed_in_any_byte_is_asked_again() -> None:
    app = {
        "kind": "Application",
        "metadata": {"name": "team-a"},
        "spec": {
            "source": {"path": "rendered", "directory": {"recurse": True, "include": "{ns-1/*}"}}
        },
    }
    selections: Selections = {}
    assert ArgoCDTree.of([app], selections).syncing("rendered/ns-1/a.yaml") == [app]
    changed = {
        **app,
        "spec": {
            "source": {"path": "rendered", "directory": {"recurse": True, "include": "{ns-2/*}"}}
        },
    }
    assert ArgoCDTree.of([changed], selections).syncing("rendered/ns-1/a.yaml") == []
    assert len(selections) == 1  # only the Applications of now are remembered

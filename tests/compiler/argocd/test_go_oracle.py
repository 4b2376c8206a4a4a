"""The Python port of Argo CD's matching, held to answers recorded from the real Go code.

``data/go_oracle.jsonl`` was written by ``go_oracle/generate.py`` (it needs Go and the git
mirrors, so CI only reads its output): github.com/gobwas/glob v0.2.3 (the version argo-cd
requires), Argo CD's ``globMatch``, ``IsSourcePermitted``, ``isDestinationMatched``,
``IsGroupKindNamePermitted``, ``NormalizeGitURL``, ``util/app/path.Path`` and
``getPotentiallyValidManifests`` copied verbatim from argo-cd 37ee009 (3.6 development), Go
1.19's ``path/filepath`` and ``net/url``. Its first line names them. The named cases are one per
known quirk; the others are a varied subset of seeded random cases. Go answers ``panic`` where
it panics; the port must then raise ``GlobPanic`` with Go's message.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compiler.argocd import directory, permissions
from compiler.argocd.giturl import normalize_git_url
from compiler.argocd.glob import GlobPanic, match, path_match, valid
from compiler.argocd.gobwas.compiler import compile_glob
from compiler.argocd.gobwas.gostr import go_runes, go_string

ORACLE = Path(__file__).parent / "data" / "go_oracle.jsonl"
Case = dict[str, Any]


def _load() -> tuple[Case, list[Case]]:
    # not splitlines(): the cases hold U+0085 and U+2028, which it would split at
    lines = ORACLE.read_text(encoding="utf-8").rstrip("\n").split("\n")
    header, *cases = (json.loads(line) for line in lines)
    return header, cases


HEADER, CASES = _load()


def _project(case: Case) -> Case:
    return {"spec": case["spec"]}


def _directory_selection(case: Case) -> Case:
    source = {
        "path": case["path"],
        "directory": {k: case[k] for k in ("recurse", "include", "exclude")},
    }
    return {"sel": sorted(f for f in case["files"] if directory.selects(source, f))}


PORT: dict[str, Callable[[Case], Case]] = {
    "glob": lambda c: {
        "m": match(c["p"], c["t"], c["sep"]),
        "err": not valid(c["p"], c["sep"]),
    },
    "path": lambda c: {"m": path_match(c["p"], c["t"])},
    "gm": lambda c: {
        "m": permissions.glob_match(c["p"], c["t"], allow_negation=c["neg"], separators=c["sep"])
    },
    "norm": lambda c: {"s": normalize_git_url(c["u"])},
    "src": lambda c: {"m": permissions.source_permitted(_project(c), c["u"])},
    "dest": lambda c: {
        "m": permissions.destination_permitted(
            _project(c), permissions.Cluster(name=c["name"], server=c["server"]), c["ns"]
        )
    },
    "gk": lambda c: {
        "m": permissions.group_kind_permitted(
            _project(c), c["g"], c["k"], c["name"], namespaced=c["namespaced"]
        )
    },
    "dir": _directory_selection,
}


def port_answer(case: Case) -> Case:
    try:
        return PORT[case["op"]](case)
    except GlobPanic as panic:
        return {"panic": panic.reason}


def go_answer(case: Case) -> Case:
    """The part of Go's answer the port answers too."""
    go = case["go"]
    if "panic" in go:
        return {"panic": go["panic"]}
    if case["op"] == "glob":
        return {"m": go["m"], "err": bool(go.get("err"))}
    if case["op"] == "norm":
        return {"s": go["s"]}
    if case["op"] == "dir":
        return {"sel": go.get("sel") or []}
    return {"m": go["m"]}


def test_the_oracle_names_its_sources_and_covers_every_function() -> None:
    assert HEADER["gobwas/glob"].startswith("v0.2.3 ")
    assert HEADER["argo-cd"] and HEADER["go"].startswith("go version go1.")
    counts = Counter(case["op"] for case in CASES)
    assert set(counts) == set(PORT)
    assert min(counts.values()) >= 100, counts
    assert sum("panic" in case["go"] for case in CASES) >= 10


NAMED = [case for case in CASES if "id" in case]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in NAMED])
def test_each_known_quirk_answers_as_go(case: Case) -> None:
    assert port_answer(case) == go_answer(case)


@pytest.mark.parametrize("op", sorted(PORT))
def test_random_cases_answer_as_go(op: str) -> None:
    cases = [case for case in CASES if case["op"] == op and "id" not in case]
    wrong = [
        (case, go_answer(case), port_answer(case))
        for case in cases
        if port_answer(case) != go_answer(case)
    ]
    assert not wrong, f"{len(wrong)} of {len(cases)} differ from Go, e.g. {wrong[:3]}"


def test_patterns_compile_to_the_matcher_trees_gobwas_builds() -> None:
    """gobwas prints its compiled matcher (Go's String()); the port prints the same."""
    compiled = [case for case in CASES if "tree" in case["go"]]
    assert len(compiled) >= 1000
    wrong = [
        (case["p"], case["sep"], case["go"]["tree"], tree)
        for case in compiled
        if (tree := str(compile_glob(go_string(case["p"]), tuple(go_runes(case["sep"])))))
        != case["go"]["tree"]
    ]
    assert not wrong, f"{len(wrong)} trees differ, e.g. {wrong[:3]}"

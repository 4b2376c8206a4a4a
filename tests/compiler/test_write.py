"""The writer: deterministic, atomic, and it never touches a file it did not write."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.compile import write
from compiler.compile.core import compile_apps
from compiler.compile.write import (
    MANIFEST,
    PENDING,
    TMP_SUFFIX,
    TreeError,
    diff_tree,
    parse_manifest,
    read_manifest,
    recover,
    write_tree,
)
from compiler.spec.load import find_spec_files, load_specs
from tests.conftest import EXAMPLES
from webhook.bundle.model import Bundle

V1 = {"ns/a/deployment.yaml": b"a: 1\n", "ns/b/deployment.yaml": b"b: 1\n"}
V2 = {"ns/a/deployment.yaml": b"a: 2\n", "ns/c/deployment.yaml": b"c: 1\n"}


def files_in(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in directory.rglob("*")
        if p.is_file()
    }


def test_same_bytes_whatever_the_input_order(bundle: Bundle) -> None:
    specs = load_specs(find_spec_files([EXAMPLES / "apps"]))
    first = compile_apps(specs, bundle).files
    for seed in range(5):
        shuffled = specs[:]
        random.Random(seed).shuffle(shuffled)
        assert compile_apps(shuffled, bundle).files == first


def test_write_then_update_then_prune(tmp_path: Path) -> None:
    diff = write_tree(tmp_path, V1)
    assert diff.added == tuple(sorted(V1))
    (tmp_path / "README.md").write_text("ours, not fedgate's\n")
    (tmp_path / "ns" / "b" / "notes.txt").write_text("a foreign file in an app directory\n")
    diff = write_tree(tmp_path, V2)
    assert (diff.added, diff.changed, diff.removed) == (
        ("ns/c/deployment.yaml",),
        ("ns/a/deployment.yaml",),
        ("ns/b/deployment.yaml",),
    )
    on_disk = files_in(tmp_path)
    assert on_disk["ns/a/deployment.yaml"] == b"a: 2\n"
    assert "ns/b/deployment.yaml" not in on_disk
    assert on_disk["README.md"] == b"ours, not fedgate's\n"
    assert on_disk["ns/b/notes.txt"]  # foreign files survive, and so does their directory
    assert set(read_manifest(tmp_path)) == set(V2)
    assert diff_tree(tmp_path, V2).clean


def test_pruning_removes_empty_app_directories(tmp_path: Path) -> None:
    write_tree(tmp_path, V1)
    write_tree(tmp_path, V2)
    assert not (tmp_path / "ns" / "b").exists()


def test_refuses_to_overwrite_a_file_it_did_not_write(tmp_path: Path) -> None:
    (tmp_path / "ns" / "a").mkdir(parents=True)
    (tmp_path / "ns" / "a" / "deployment.yaml").write_bytes(b"hand written\n")
    with pytest.raises(TreeError, match="will not overwrite files it does not own"):
        write_tree(tmp_path, V1)
    assert files_in(tmp_path) == {"ns/a/deployment.yaml": b"hand written\n"}


def test_adopts_a_file_that_already_holds_the_same_bytes(tmp_path: Path) -> None:
    (tmp_path / "ns" / "a").mkdir(parents=True)
    (tmp_path / "ns" / "a" / "deployment.yaml").write_bytes(V1["ns/a/deployment.yaml"])
    write_tree(tmp_path, V1)
    assert set(read_manifest(tmp_path)) == set(V1)


def test_failure_while_staging_leaves_the_previous_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, V1)
    before = files_in(tmp_path)
    real = write._write_synced
    calls = []

    def failing(path: Path, data: bytes) -> None:
        calls.append(path)
        if len(calls) == 2:
            real(path, data[:1])  # half a file, then the disk fills up
            raise OSError(28, "No space left on device")
        real(path, data)

    monkeypatch.setattr(write, "_write_synced", failing)
    with pytest.raises(OSError, match="No space left"):
        write_tree(tmp_path, V2)
    assert files_in(tmp_path) == before
    assert not list(tmp_path.rglob("*" + TMP_SUFFIX))


def test_interruption_after_commit_point_is_rolled_forward(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, V1)

    def crash(*_: object) -> None:
        raise KeyboardInterrupt  # as if killed between staging and renaming

    monkeypatch.setattr(write, "_commit", crash)
    with pytest.raises(KeyboardInterrupt):
        write_tree(tmp_path, V2)
    assert (tmp_path / PENDING).exists()
    with pytest.raises(TreeError, match="interrupted compile"):
        diff_tree(tmp_path, V2)  # --check says so instead of guessing
    monkeypatch.undo()
    recover(tmp_path)
    assert {k: v for k, v in files_in(tmp_path).items() if not k.startswith(".")} == V2
    assert diff_tree(tmp_path, V2).clean


def test_stray_temporaries_are_cleaned(tmp_path: Path) -> None:
    write_tree(tmp_path, V1)
    (tmp_path / ("ns/a/deployment.yaml" + TMP_SUFFIX)).write_bytes(b"junk")
    write_tree(tmp_path, V1)
    assert not list(tmp_path.rglob("*" + TMP_SUFFIX))


def test_check_lists_missing_stale_and_extra(tmp_path: Path) -> None:
    write_tree(tmp_path, V1)
    (tmp_path / "ns" / "a" / "deployment.yaml").write_bytes(b"edited by hand\n")
    diff = diff_tree(tmp_path, {**V1, "ns/d/deployment.yaml": b"d\n"} | {})
    assert diff.added == ("ns/d/deployment.yaml",)
    assert diff.changed == ("ns/a/deployment.yaml",)
    diff = diff_tree(tmp_path, {"ns/a/deployment.yaml": V1["ns/a/deployment.yaml"]})
    assert diff.removed == ("ns/b/deployment.yaml",)


def test_a_hand_edited_manifest_is_an_error(tmp_path: Path) -> None:
    write_tree(tmp_path, V1)
    (tmp_path / MANIFEST).write_text("garbage\n")
    with pytest.raises(TreeError, match="not a manifest line"):
        write_tree(tmp_path, V1)


def test_compile_app_is_the_single_app_core(bundle: Bundle) -> None:
    from compiler.compile.core import compile_app  # noqa: PLC0415

    [spec] = load_specs([EXAMPLES / "apps" / "web-frontend.yaml"])
    rendered = compile_app(spec, bundle)
    assert [o["kind"] for o in rendered.objects] == [
        "Deployment",
        "FederatedHPA",
        "PropagationPolicy",
    ]
    assert rendered.candidates == ("cluster-a", "cluster-b")


def _parse_manifest_unremembered(text: str, where: str) -> dict[str, str]:
    """parse_manifest as it was, before it remembered its last texts."""
    entries = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        sha, sep, path = line.partition("  ")
        if (
            not sep
            or len(sha) != 64
            or not (bool(path) and not path.startswith("/") and ".." not in path.split("/"))
        ):
            raise TreeError(f"{where}:{number}: not a manifest line; was it edited by hand?")
        entries[path] = sha
    return entries


_LINES = st.sampled_from(
    [
        "a" * 64 + "  ns/app/deployment.yaml",
        "b" * 64 + "  ns/app/deployment.yaml",
        "c" * 64 + "  ns/other/service.yaml",
        "# a comment",
        "",
        "d" * 63 + "  short.yaml",
        "e" * 64 + " one-space.yaml",
        "f" * 64 + "  ../outside.yaml",
        "0" * 64 + "  /absolute.yaml",
    ]
)


@settings(max_examples=200)
@given(texts=st.lists(st.lists(_LINES, max_size=6).map("\n".join), min_size=1, max_size=6))
def test_a_remembered_manifest_parses_as_it_did(texts: list[str]) -> None:
    for number, text in enumerate([*texts, *texts]):
        where = f"manifest-{number}"
        try:
            expected: object = _parse_manifest_unremembered(text, where)
        except TreeError as exc:
            expected = str(exc)
        try:
            got: object = parse_manifest(text, where)
        except TreeError as exc:
            got = str(exc)
        assert got == expected
        if isinstance(got, dict):
            got["mutated"] = "x"  # a caller's copy: the next call must not see it

"""Repository: HEAD's listing of several folders from one git process is each folder's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.check.gitrepo import Repository, blob_id
from tests.helpers import git

pytestmark = pytest.mark.slow  # git repositories (the platform_repo fixture)


def test_one_listing_of_several_folders_is_each_folders_listing(platform_repo: Path) -> None:
    folders = [
        platform_repo / "rendered",
        platform_repo / "policies",
        platform_repo / "rendered" / "platform-demo",
        platform_repo,
        platform_repo / "nowhere",
        platform_repo.parent,  # outside the repository
    ]
    together = Repository.find(platform_repo)
    assert together is not None
    together.prefetch(*folders)
    for folder in folders:
        alone = Repository.find(platform_repo)
        assert alone is not None
        assert together.committed(folder) == alone.committed(folder), folder
    rendered = together.committed(platform_repo / "rendered")
    assert "platform-demo/status-page/deployment.yaml" in rendered
    data = platform_repo / "rendered" / "platform-demo" / "status-page" / "deployment.yaml"
    assert rendered["platform-demo/status-page/deployment.yaml"] == blob_id(data.read_bytes())
    assert together.committed(platform_repo.parent) == {}
    assert together.committed(platform_repo / "nowhere") == {}


def test_a_folder_whose_name_starts_another_is_not_listed_with_it(platform_repo: Path) -> None:
    (platform_repo / "rendered-old").mkdir()
    (platform_repo / "rendered-old" / "x.yaml").write_text("a: 1\n")
    git(platform_repo, "add", "-A")
    git(platform_repo, "commit", "-qm", "a neighbour")
    repository = Repository.find(platform_repo)
    assert repository is not None
    repository.prefetch(platform_repo / "rendered", platform_repo / "rendered-old")
    assert "x.yaml" not in repository.committed(platform_repo / "rendered")
    assert repository.committed(platform_repo / "rendered-old") == {"x.yaml": blob_id(b"a: 1\n")}

"""``fedgate plan --output markdown|html`` in a platform repository: the reviewer's comment and
page say what the text plan says, and headless Chromium shows the page with its charts, no
console error, and the JSON plan's numbers."""

from __future__ import annotations

import json
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.compiler.commands.entry import fedgate, git, no_traceback, platform
from tests.compiler.commands.pages import CHROMIUM, FLAGS, Page


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example platform committed, then two apps changed and compiled."""
    repository = platform(tmp_path_factory.mktemp("pages"))
    assert fedgate("compile", cwd=repository).returncode == 0
    git(repository, "add", "-A")
    git(repository, "commit", "-qm", "init")
    spec = repository / "apps" / "status-page.yaml"
    spec.write_text(spec.read_text().replace("replicas: 2", "replicas: 3"))
    spec = repository / "apps" / "web-frontend.yaml"
    spec.write_text(spec.read_text().replace("web-frontend:4.2.0", "web-frontend:4.3.0"))
    assert fedgate("compile", cwd=repository).returncode == 0
    return repository


def output(repo: Path, fmt: str) -> str:
    result = fedgate("plan", "--output", fmt, cwd=repo)
    no_traceback(result)
    assert result.returncode == 0, result.stderr
    return result.stdout


def numbers(page: str) -> tuple[dict[Any, Any], dict[Any, Any]]:
    parsed = Page()
    parsed.feed(page)
    copies = {
        (a["data-app"], a["data-cluster"]): a["data-replicas"]
        for t, a in parsed.tags
        if t == "g" and a.get("class") == "copy"
    }
    quotas = {
        (a["data-tenant"], a["data-resource"]): (a["data-used"], a["data-quota"])
        for t, a in parsed.tags
        if t == "div" and a.get("class") == "quota"
    }
    return copies, quotas


def expected(plan: dict[str, Any]) -> tuple[dict[Any, Any], dict[Any, Any]]:
    changed = {(c["namespace"], c["name"]) for c in plan["changes"]["apps"]}
    copies = {
        (f"{a['namespace']}/{a['name']}", cluster): str(replicas)
        for a in plan["apps"]
        if (a["namespace"], a["name"]) in changed
        for cluster, replicas in a["placement"].items()
    }
    touched = {a["tenant"] for a in plan["apps"] if (a["namespace"], a["name"]) in changed}
    quotas = {
        (t["tenant"], r): (t["used"][r], t["quota"][r])
        for t in plan["tenants"]
        if t["tenant"] in touched
        for r in ("cpu", "memory")
    }
    return copies, quotas


@pytest.mark.slow
def test_the_comment_says_what_the_text_plan_says(repo: Path) -> None:
    text = output(repo, "text")
    comment = output(repo, "markdown")
    summary = text.splitlines()[-1]
    assert f"**{summary}**" in comment
    for app in ("platform-demo/status-page", "platform-demo/web-frontend"):
        assert f"| changed | {app} |" in comment
    assert "(was `registry.example.com/platform/web-frontend:4.2.0`)" in comment
    tenant = next(line for line in text.splitlines() if line.startswith("tenant team-a: "))
    cpu = tenant.split("cpu ")[1].split(",")[0].replace(" -> ", " → ")
    assert f"| team-a | {cpu} |" in comment


@pytest.mark.slow
def test_the_page_draws_the_json_plan_s_numbers(repo: Path) -> None:
    plan = json.loads(output(repo, "json"))
    assert all("usedBefore" in t and "ceilingBefore" in t for t in plan["tenants"])
    page = output(repo, "html")
    assert numbers(page) == expected(plan)
    assert numbers(page)[0]  # the charts are there


@pytest.mark.slow
def test_markdown_and_html_need_git_head(repo: Path) -> None:
    result = fedgate("plan", "--tree", "rendered", "--output", "html", cwd=repo)
    no_traceback(result)
    assert result.returncode == 2
    assert "--output html shows a change against git HEAD" in result.stderr


def png_pixels(data: bytes) -> set[tuple[int, int, int]]:
    """The colours of an 8-bit RGB or RGBA PNG (what Chromium writes), decoded with zlib."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    offset, chunks, header = 8, [], b""
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        offset += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6), (depth, colour)
    size = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * size
    previous = bytearray(stride)
    found: set[tuple[int, int, int]] = set()
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - size] if i >= size else 0
            up = previous[i]
            corner = previous[i - size] if i >= size else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                guess = left + up - corner
                pa, pb, pc = abs(guess - left), abs(guess - up), abs(guess - corner)
                best = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + best) & 0xFF
        found.update((line[i], line[i + 1], line[i + 2]) for i in range(0, stride, size * 4))
        previous = line
    return found


@pytest.mark.slow
@pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)"
)
def test_chromium_shows_the_page_with_its_charts_and_no_console_error(
    repo: Path, tmp_path: Path
) -> None:
    page = tmp_path / "plan.html"
    page.write_text(output(repo, "html"))
    plan = json.loads(output(repo, "json"))
    common = [str(CHROMIUM), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [*common, "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line]
    assert not console, console
    assert numbers(dom.stdout) == expected(plan)  # what Chromium built, read back
    shot = tmp_path / "plan.png"
    taken = subprocess.run(
        [*common, f"--screenshot={shot}", "--window-size=1200,1400", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert taken.returncode == 0 and shot.is_file(), taken.stderr[-2000:]
    colours = png_pixels(shot.read_bytes())
    assert (0x54, 0xAE, 0xFF) in colours  # the placement bars
    assert (0x2D, 0xA4, 0x4E) in colours  # the quota bars

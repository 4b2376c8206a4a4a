"""What the tests of the plan's HTML pages share: headless chromium (when installed) with the
flags that keep it off the network, and a parser that lists a page's tags."""

from __future__ import annotations

import shutil
from html.parser import HTMLParser

CHROMIUM = shutil.which("chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


class Page(HTMLParser):
    """The start tags of a page, in order, with their attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

"""Plan text that a terminal shows as written: no control characters from the manifests, and
every line within ``WIDTH`` columns.

The text of a plan quotes what authors wrote (names, labels, images, rule messages that embed
field values). A control character there could move the cursor or erase a line of the report
(an escape sequence in a label value could hide a ``deny`` from the reviewer), so each one is
shown as its Python escape (``\\x1b``) before any colour is added. Columns are counted as a
terminal counts them: East Asian wide characters take two, combining marks none.
"""

from __future__ import annotations

import unicodedata

WIDTH = 100
"""The widest line plan writes."""
CUT = "..."
"""What ends a line that was cut (a diff line; everything else is wrapped)."""


def _escaped(char: str) -> str:
    code = ord(char)
    if code == 0x09:
        return "\\t"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _control(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") and char != "\u200d"


def printable(text: str) -> str:
    """``text`` with every control, format and line/paragraph separator character escaped."""
    if text.isprintable():
        return text
    return "".join(_escaped(c) if _control(c) else c for c in text)


def char_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def columns(text: str) -> int:
    """How many columns a terminal gives ``text`` (printable text)."""
    return len(text) if text.isascii() else sum(char_width(c) for c in text)


def cut(text: str, width: int = WIDTH) -> str:
    """``text`` cut to ``width`` columns, ending in ``...`` when something was cut off."""
    if columns(text) <= width:
        return text
    kept, used = [], 0
    for char in text:
        size = char_width(char)
        if used + size > width - len(CUT):
            break
        kept.append(char)
        used += size
    return "".join(kept) + CUT


def _split(word: str, room: int) -> tuple[str, str]:
    """The longest head of ``word`` within ``room`` columns (at least one character), and the
    rest."""
    used = 0
    for at, char in enumerate(word):
        used += char_width(char)
        if used > room:
            return (word[:at], word[at:]) if at else (word[:1], word[1:])
    return word, ""


def wrap(text: str, hang: int, width: int = WIDTH) -> list[str]:
    """``text`` on lines of at most ``width`` columns, broken between words; the lines after
    the first start with ``hang`` spaces (at most half the width). A word longer than a line is
    broken inside. Every character but the spaces where lines break is kept, in order."""
    if columns(text) <= width:
        return [text]
    hang = min(hang, width // 2)
    indent = min(len(text) - len(text.lstrip(" ")), width // 2)
    lines: list[str] = []
    line, used, fresh = " " * indent, indent, True
    for whole in text.lstrip(" ").split(" "):
        word, size = whole, columns(whole)
        if not fresh:
            if used + 1 + size <= width:
                line, used = f"{line} {word}", used + 1 + size
                continue
            if size > width - hang and used + 2 < width:  # broken anyway: start it here
                line, used = line + " ", used + 1
            else:
                lines.append(line)
                line, used = " " * hang, hang
        while columns(word) > width - used:  # wider than what is left of a fresh line
            head, word = _split(word, width - used)
            lines.append(line + head)
            line, used = " " * hang, hang
        line, used, fresh = line + word, used + columns(word), False
    lines.append(line)
    return lines

"""Random ``fedgate`` command lines for hypothesis: a command (or a wrong one), its own options
read from the parser, and words that make good junk (paths, formats, numbers, empty, NUL)."""

from __future__ import annotations

import argparse

from hypothesis import strategies as st

from compiler.cli import build_parser

WORDS = (
    "apps",
    "rendered",
    "policies",
    "request.json",
    "suite",
    "x",
    "-",
    ".",
    "..",
    "nope",
    "notadir",
    "apps/one.yaml",
    "rendered/x",
    "json",
    "text",
    "bash",
    "0",
    "-1",
    "99999999999999999999",
    "",
    "\x00",
    "é",
    "--",
    "-v",
    "CREATE",
    "cel-python",
)


def _options() -> dict[str, list[tuple[str, bool]]]:
    """Every command's own options, read from the parser itself: (option, takes a value)."""
    parser = build_parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {
        name: [(s, action.nargs != 0) for action in sub._actions for s in action.option_strings]
        for name, sub in commands.choices.items()
    }


OPTIONS = _options()


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    """A command, then up to five options (with a value when they take one) or words."""
    command = draw(st.sampled_from([*OPTIONS, "nonsense"]))
    word = st.sampled_from(WORDS)
    option = st.sampled_from(OPTIONS.get(command, [("--x", False)])).flatmap(
        lambda o: st.tuples(st.just(o[0]), word).map(list) if o[1] else st.just([o[0]])
    )
    piece = st.one_of(option, option, word.map(lambda w: [w]))  # options twice as likely
    return [command, *(t for p in draw(st.lists(piece, max_size=5)) for t in p)]

"""The two pattern languages Argo CD matches with.

- ``match``: Argo CD's ``util/glob.Match``, which compiles with github.com/gobwas/glob v0.2.3
  (ported in ``compiler.argocd.gobwas``) and caches the result: project destinations and source
  repositories, and a directory source's ``include`` / ``exclude``
  (``reposerver/repository/repository.go``, with no separators, so ``*`` crosses ``/``).
  A pattern gobwas cannot compile matches nothing (Argo CD logs and answers false). Where gobwas
  panics, ``match`` raises ``GlobPanic``: ``util/glob.Match`` does not recover, so the panic
  unwinds to the repo server's or the application controller's recovery handler and the
  Application is never reconciled. Callers turn it into a refusal.
- ``path_match``: Go's ``path/filepath.Match`` (``compiler.argocd.filepath``), which Argo CD
  uses for the group and kind entries of an AppProject's resource white- and blacklists.

Both answer exactly what the Go code answers, quirks included (see the modules' docstrings);
``tests/compiler/argocd/test_go_oracle.py`` holds them to answers recorded from the Go code.
"""

from __future__ import annotations

from functools import lru_cache

from compiler.argocd.filepath import path_match
from compiler.argocd.gobwas.compiler import compile_glob
from compiler.argocd.gobwas.gostr import GoPanic, go_runes, go_string
from compiler.argocd.gobwas.leaves import Matcher
from compiler.argocd.gobwas.parser import GlobSyntaxError

__all__ = ["GlobPanic", "GlobSyntaxError", "match", "path_match", "valid"]


class GlobPanic(RuntimeError):
    """Argo CD would crash on this pattern: gobwas/glob panics matching it."""

    def __init__(self, pattern: str, text: str, reason: str) -> None:
        self.pattern, self.text, self.reason = pattern, text, reason
        super().__init__(
            f"Argo CD would crash on the pattern {pattern!r} (matching {text!r}, gobwas/glob "
            f"panics: {reason}), so it would never reconcile the Application"
        )


@lru_cache(maxsize=4096)
def _compiled(pattern: str, separators: str) -> Matcher | GlobSyntaxError:
    try:
        return compile_glob(go_string(pattern), tuple(go_runes(separators)))
    except GlobSyntaxError as error:
        return error


def valid(pattern: str, separators: str = "") -> bool:
    """Whether gobwas compiles ``pattern`` (Argo CD matches nothing with one it cannot)."""
    return not isinstance(_compiled(pattern, separators), GlobSyntaxError)


def match(pattern: str, text: str, separators: str = "") -> bool:
    """``util/glob.Match(pattern, text, separators...)``; raises GlobPanic where Argo CD would
    crash."""
    try:
        compiled = _compiled(pattern, separators)
        return not isinstance(compiled, GlobSyntaxError) and compiled.match(go_string(text))
    except GoPanic as panic:
        raise GlobPanic(pattern, text, str(panic)) from panic

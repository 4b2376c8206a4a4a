"""github.com/gobwas/glob v0.2.3 (the version Argo CD pins in go.mod), ported to Python module by
module so that a pattern answers here exactly what it answers in Argo CD, quirks included.

- ``gostr``: the Go string semantics the Go code relies on (UTF-8 bytes, ``unicode/utf8``,
  ``strings.IndexRune``, slicing that panics out of bounds);
- ``lexer`` and ``parser``: ``syntax/lexer`` and ``syntax/ast``;
- ``leaves`` and ``composites``: the matchers of the ``match`` package;
- ``compiler``: ``compiler/compiler.go`` and the package's ``Compile``.

Patterns and texts are Go strings: ``bytes``. ``compiler.compile_glob`` raises
``GlobSyntaxError`` where gobwas returns an error; matching raises ``GoPanic`` where gobwas
panics. ``compiler.argocd.glob`` is the Argo CD-level entry point.
"""

"""gobwas/glob v0.2.3 ``compiler/compiler.go`` and ``glob.go``'s ``Compile``: the matcher tree a
pattern compiles to, with every optimization in the same order, since the tree decides the
answers (a ``Row`` of fixed-length members, a ``BTree`` around the longest fixed-length one,
members glued into ``EveryOf`` / ``Min`` / ``Any``, common parts pulled out of ``{...}``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from compiler.argocd.gobwas.composites import AnyOf, BTree, EveryOf, Row, new_btree
from compiler.argocd.gobwas.gostr import GoPanic, encode_runes, go_runes
from compiler.argocd.gobwas.leaves import (
    Any,
    Contains,
    List,
    Matcher,
    Max,
    Min,
    Nothing,
    Prefix,
    PrefixAny,
    PrefixSuffix,
    Range,
    Single,
    Suffix,
    SuffixAny,
    Super,
    Text,
)
from compiler.argocd.gobwas.lexer import Lexer
from compiler.argocd.gobwas.parser import (
    GlobSyntaxError,
    Kind,
    ListValue,
    Node,
    RangeValue,
    TextValue,
    new_node,
    parse,
)

Separators = tuple[int, ...]


def compile_glob(pattern: bytes, separators: Separators = ()) -> Matcher:
    """``glob.Compile(pattern, separators...)``; GlobSyntaxError where it returns an error."""
    return _compile(parse(Lexer(pattern)), separators)


def optimize_matcher(matcher: Matcher | None) -> Matcher | None:
    """``optimizeMatcher``."""
    if isinstance(matcher, Any) and not matcher.separators:
        return Super()
    if isinstance(matcher, AnyOf) and len(matcher.matchers) == 1:
        return matcher.matchers[0]
    if isinstance(matcher, List) and not matcher.negated and len(matcher.runes) == 1:
        return Text(encode_runes(list(matcher.runes)))
    if isinstance(matcher, BTree):
        return _optimize_btree(matcher)
    return matcher


def _optimize_btree(tree: BTree) -> Matcher:
    # Go rewrites Left and Right on its copy of the BTree but keeps the recorded lengths.
    tree = dataclasses.replace(
        tree, left=optimize_matcher(tree.left), right=optimize_matcher(tree.right)
    )
    if not isinstance(tree.value, Text):
        return tree
    text, left, right = tree.value.text, tree.left, tree.right
    if left is None and right is None:
        return Text(text)
    if isinstance(left, Super) and isinstance(right, Super):
        return Contains(text, negated=False)
    if isinstance(left, Super) and right is None:
        return Suffix(text)
    if isinstance(right, Super) and left is None:
        return Prefix(text)
    if left is None and isinstance(right, Suffix):
        return PrefixSuffix(text, right.suffix)
    if right is None and isinstance(left, Prefix):
        return PrefixSuffix(left.prefix, text)
    if right is None and isinstance(left, Any):
        return SuffixAny(text, left.separators)
    if left is None and isinstance(right, Any):
        return PrefixAny(text, right.separators)
    return tree


def compile_matchers(matchers: Sequence[Matcher]) -> Matcher:
    """``compileMatchers``: glue them, or build a BTree around the longest fixed-length one
    (the last of equals), or around the first when none has a fixed length."""
    if not matchers:
        raise GlobSyntaxError("compile error: need at least one matcher")
    if len(matchers) == 1:
        return matchers[0]
    glued = glue_matchers(matchers)
    if glued is not None:
        return glued
    index, longest = -1, -1
    for position, matcher in enumerate(matchers):
        length = matcher.length()
        if length != -1 and length >= longest:
            index, longest = position, length
    if index == -1:
        return new_btree(matchers[0], None, compile_matchers(matchers[1:]))
    left, right = matchers[:index], matchers[index + 1 :]
    return new_btree(
        matchers[index],
        compile_matchers(left) if left else None,
        compile_matchers(right) if right else None,
    )


def glue_matchers(matchers: Sequence[Matcher]) -> Matcher | None:
    """``glueMatchers``."""
    every = _glue_as_every(matchers)
    return every if every is not None else _glue_as_row(matchers)


def _glue_as_row(matchers: Sequence[Matcher]) -> Matcher | None:
    if len(matchers) <= 1:
        return None
    lengths = [m.length() for m in matchers]
    if -1 in lengths:
        return None
    return Row(tuple(matchers), sum(lengths))


def _every_member_separators(matcher: Matcher) -> Separators | None:
    """The separators a member of ``glueMatchersAsEvery`` stands for; None: not gluable."""
    if isinstance(matcher, Super):
        return ()
    if isinstance(matcher, Any | Single):
        return matcher.separators
    if isinstance(matcher, List) and matcher.negated:
        return matcher.runes
    return None


def _glue_as_every(matchers: Sequence[Matcher]) -> Matcher | None:
    if len(matchers) <= 1:
        return None
    separators = _every_member_separators(matchers[0])
    if separators is None:
        return None
    has_super = has_any = False
    singles = 0
    for matcher in matchers:
        if _every_member_separators(matcher) != separators:
            return None
        has_super = has_super or isinstance(matcher, Super)
        has_any = has_any or isinstance(matcher, Any)
        singles += isinstance(matcher, Single | List)
    if has_super and not has_any and not singles:
        return Super()
    if has_any and not has_super and not singles:
        return Any(separators)
    if (has_any or has_super) and singles > 0 and not separators:
        return Min(singles)
    members: list[Matcher] = []
    if singles > 0:
        members.append(Min(singles))
        if not has_any and not has_super:
            members.append(Max(singles))
    if separators:
        # the separators (or a negated list's runes) glued into ONE needle, as Go does
        members.append(Contains(encode_runes(list(separators)), negated=True))
    return EveryOf(tuple(members))


def minimize_matchers(matchers: list[Matcher]) -> list[Matcher]:
    """``minimizeMatchers``: replace the widest gluable run (or the longer glued one) and
    repeat while that shortens the list."""
    done: Matcher | None = None
    left = right = count = 0
    for low in range(len(matchers)):
        for high in range(len(matchers), low, -1):
            glued = glue_matchers(matchers[low:high])
            if glued is None:
                continue
            if done is None:
                swap = True
            else:
                done_len, glued_len = done.length(), glued.length()
                swap = done_len > -1 and glued_len > -1 and glued_len > done_len
                swap = swap or count < high - low
            if swap:
                done, left, right, count = glued, low, high, high - low
    if done is None:
        return matchers
    shorter = [*matchers[:left], done, *matchers[right:]]
    if len(shorter) == len(matchers):
        return shorter
    return minimize_matchers(shorter)


def _compile_children(tree: Node, separators: Separators) -> list[Matcher]:
    out = []
    for child in tree.children:
        matcher = optimize_matcher(_compile(child, separators))
        assert matcher is not None
        out.append(matcher)
    return out


def _compile(tree: Node, separators: Separators) -> Matcher:
    """``compile``."""
    if tree.kind == Kind.ANY_OF:
        minimized = minimize_tree_any_of(tree)
        if minimized is not None:
            return _compile(minimized, separators)
        return AnyOf(tuple(_compile_children(tree, separators)))  # not optimized, as in Go
    matcher: Matcher
    if tree.kind == Kind.PATTERN:
        if not tree.children:
            return Nothing()
        matcher = compile_matchers(minimize_matchers(_compile_children(tree, separators)))
    else:
        matcher = _compile_leaf(tree, separators)
    optimized = optimize_matcher(matcher)
    assert optimized is not None
    return optimized


def _compile_leaf(tree: Node, separators: Separators) -> Matcher:
    value = tree.value
    if tree.kind == Kind.ANY:
        return Any(separators)
    if tree.kind == Kind.SUPER:
        return Super()
    if tree.kind == Kind.SINGLE:
        return Single(separators)
    if tree.kind == Kind.NOTHING:
        return Nothing()
    if isinstance(value, ListValue):
        return List(tuple(go_runes(value.chars.decode("utf-8"))), value.negated)
    if isinstance(value, RangeValue):
        return Range(value.lo, value.hi, value.negated)
    if isinstance(value, TextValue):
        return Text(value.text)
    raise GlobSyntaxError("could not compile tree: unknown node type")


def minimize_tree_any_of(tree: Node) -> Node | None:
    """``minimizeTreeAnyOf``: pull the children common to every alternative, on the left and
    on the right, out of ``{...}``; an alternative left empty becomes Nothing."""
    if any(child.kind != Kind.PATTERN for child in tree.children):
        return None
    common_left, common_right = common_children(tree.children)
    if not common_left and not common_right:
        return None
    result = []
    if common_left:
        result.append(new_node(Kind.PATTERN, None, *common_left))
    alternatives: list[Node] = []
    for child in tree.children:
        end = len(child.children) - len(common_right)
        if len(common_left) > end:
            raise GoPanic(f"runtime error: slice bounds out of range [{len(common_left)}:{end}]")
        reuse = child.children[len(common_left) : end]
        node = new_node(Kind.PATTERN, None, *reuse) if reuse else new_node(Kind.NOTHING)
        if not any(node.equal(seen) for seen in alternatives):
            alternatives.append(node)
    if len(alternatives) == 1 and alternatives[0].kind != Kind.NOTHING:
        result.append(alternatives[0])
    elif len(alternatives) > 1:
        result.append(new_node(Kind.ANY_OF, None, *alternatives))
    if common_right:
        result.append(new_node(Kind.PATTERN, None, *common_right))
    return new_node(Kind.PATTERN, None, *result)


def common_children(nodes: Sequence[Node]) -> tuple[list[Node], list[Node]]:
    """``commonChildren``: the children every node starts with and ends with, compared
    against the node with the fewest children, both ends at once."""
    if len(nodes) <= 1:
        return [], []
    shortest = min(range(len(nodes)), key=lambda k: len(nodes[k].children))
    tree = nodes[shortest]
    tree_length = len(tree.children)
    common_left: list[Node] = []
    common_right: list[Node | None] = [None] * tree_length
    last_right = tree_length
    break_left = break_right = False
    common_total, i, j = 0, 0, tree_length - 1
    while common_total < tree_length and j >= 0 and not (break_left and break_right):
        tree_left, tree_right = tree.children[i], tree.children[j]
        for k, other in enumerate(nodes):
            if break_left and break_right:
                break
            if k == shortest:
                continue
            rest_left = other.children[i]
            rest_right = other.children[j + len(other.children) - tree_length]
            break_left = break_left or not tree_left.equal(rest_left)
            # disable searching for right common parts, if left part is already overlapping
            break_right = break_right or (not break_left and j <= i)
            break_right = break_right or not tree_right.equal(rest_right)
        if not break_left:
            common_total += 1
            common_left.append(tree_left)
        if not break_right:
            common_total += 1
            last_right = j
            common_right[j] = tree_right
        i, j = i + 1, j - 1
    return common_left, [node for node in common_right[last_right:] if node is not None]

"""The ``pattern`` subset (the pattern subset): ECMA-262 regular expressions that Python's ``re`` reads the same way.

``check_pattern(p)`` returns ``None`` for an accepted pattern, else a short problem for the message
``Parameter "{p}": pattern {problem}``.

How it works
------------
1. A tokenizer/parser of the accepted subset builds a small syntax tree. Accepted: literals and escaped literals
   (``\\`` + one of ``^ $ \\ . * + ? ( ) [ ] { } | /``, and ``-`` inside a class), ``.``, classes ``[...]`` and
   ``[^...]`` with ranges, ``\\d \\D \\w \\W \\s \\S \\b \\B``, ``\\t \\n \\r \\f \\v``, ``\\xHH``, ``\\uHHHH``, ``^ $``,
   groups ``( )`` ``(?: )``, lookahead ``(?= )`` ``(?! )``, ``|``, quantifiers ``* + ? {n} {n,} {n,m}`` and their
   lazy forms. Everything else is rejected with a specific problem (lookbehind, named groups, backreferences,
   inline flags, conditionals, atomic groups, possessive quantifiers, ``\\A \\Z \\z \\G``, ``\\p{…}``, ``\\cX``,
   ``\\N{…}``, POSIX classes, ``{,n}``, any other escape, an unescaped ``] { }`` outside a class, an unescaped
   ``[`` inside one, an empty class such as ``[]`` or ``[^]``, a quantified assertion, a surrogate-pair escape
   (``\\uD83D\\uDE00`` is one character in JavaScript but two in Python), groups nested more than
   :data:`MAX_GROUP_DEPTH` deep). Plain syntax errors (unbalanced parentheses, nothing to repeat, a reversed
   range) and anything ``re.compile`` rejects give ``is not a valid regular expression: …``.
2. Exponential backtracking. A pattern is rejected with ``may take exponential time on some inputs (nested
   quantifiers)`` when its automaton is *exponentially ambiguous*: some loop can read the same text in two
   different ways, so a backtracking engine (``re``, JavaScript) may try 2^n paths before failing. This is the
   case for a quantifier over a group that itself contains a quantifier (``(a+)+``, ``(a*)*``,
   ``(\\w+\\s?)+$``) or an alternation whose branches can match the same text (``(a|a)+``, ``(a|aa)+``,
   ``(\\w|\\d)+``). The test is the classic one on a position (Glushkov) automaton that keeps multiplicities:

   * positions are the single-character atoms (each a set of code points); ``follow`` edges carry how many
     distinct ways (1 or "2 or more") the syntax tree connects one position to the next; nested loops
     (``(a+)+``) and nullable loop bodies (``(a*)*``, ``(\\w+\\s?)+``) produce multiplicity 2;
   * the pattern is exponentially ambiguous when (i) an edge of multiplicity 2 lies on a cycle, or (ii) in the
     product automaton (pairs of positions reading characters from intersecting sets), one strongly connected
     component contains a diagonal pair ``(p, p)`` and an off-diagonal pair ``(p, q)``.

   Character sets are exact for literals, ranges and ``.``; ``\\d \\w \\s`` are approximated (ASCII digits; word
   characters = ASCII word characters plus every non-ASCII character that is not a Unicode space). Lookahead
   bodies are analysed too (they backtrack the same way). Bounded repeats ``{n,m}`` with small ``m`` are
   unrolled (no cycle, so no exponential blow-up: ``(a|a){3}`` is accepted); large or unbounded ones are treated
   as ``+``/``*``. Anchors and ``\\b`` are ignored (they are zero-width). Only exponential ambiguity is
   rejected here; polynomial cases such as ``\\d*\\d*`` or ``.*a.*`` are bounded by step 3. A pattern whose product
   automaton needs more than :data:`PRODUCT_BUDGET` units of work is rejected (the check fails closed).

   Decisions on borderline patterns: ``^(?:[a-z]+-)*[a-z]+$`` is accepted (each iteration must read a ``-``
   that ``[a-z]`` cannot, so the split is unique; it is polynomial at worst); ``^[A-Z]{2}[0-9]{6}$``,
   ``^(\\d{1,3}\\.){3}\\d{1,3}$``, ``(ab|a)*c`` and ``(a|a){3}`` are accepted; ``(a|b|ab)*`` is rejected
   (``ab`` is one iteration or two).
3. Polynomial backtracking (:func:`cost_problem`, used by rule 117 and by the guard generator with the
   parameter's ``maxLength``). :func:`pattern_degree` finds d such that a backtracking search may take about n^d
   steps on n characters (chains of loops that read one word in several ways; an unanchored pattern is analysed
   behind an implicit any-character loop, as a search tries every start). A pattern of degree 2 or more needs a
   ``maxLength`` n with n^d <= :data:`STEP_BUDGET` (10^7): guards never search a string over its ``maxLength``, so
   the worst case stays within the budget (``.*a.*a.*a.*b`` has degree 5: maxLength at most 25).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Hashable, Iterable, Iterator
from functools import lru_cache
from typing import Final, TypeVar

__all__ = ["MAX_GROUP_DEPTH", "PRODUCT_BUDGET", "STEP_BUDGET", "check_pattern", "cost_problem", "pattern_degree"]

MAX_GROUP_DEPTH: Final = 100
PRODUCT_BUDGET: Final = 500_000
EXPONENTIAL: Final = "may take exponential time on some inputs (nested quantifiers)"

MAX_CP: Final = 0x10FFFF
_T = TypeVar("_T", bound=Hashable)

# ---------------------------------------------------------------- character sets (sorted disjoint ranges)
CharSet = tuple[tuple[int, int], ...]


def _norm(ranges: Iterable[tuple[int, int]]) -> CharSet:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


def _complement(cs: CharSet) -> CharSet:
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in cs:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CP:
        out.append((nxt, MAX_CP))
    return tuple(out)


def _intersects(a: CharSet, b: CharSet) -> bool:
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return True
    return False


def _chr(c: str) -> CharSet:
    return ((ord(c), ord(c)),)


_DIGIT: Final = _norm([(0x30, 0x39)])
_SPACE: Final = _norm(
    [(0x09, 0x0D), (0x20, 0x20), (0x1C, 0x1F), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
     (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000)]
)
_WORD: Final = _norm(
    [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
    + [(max(lo, 0x80), hi) for lo, hi in _complement(_SPACE) if hi >= 0x80]
)
_CLASS_ESCAPES: Final[dict[str, CharSet]] = {
    "d": _DIGIT, "D": _complement(_DIGIT), "w": _WORD, "W": _complement(_WORD),
    "s": _SPACE, "S": _complement(_SPACE),
}
_DOT: Final = _complement(_chr("\n"))
_CONTROL_ESCAPES: Final = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\v"}
_SYNTAX_CHARS: Final = "^$\\.*+?()[]{}|/"
_HEX: Final = "0123456789abcdefABCDEF"

# ---------------------------------------------------------------- syntax tree
# ("set", CharSet) | ("empty",) | ("anchor", "^" | "$" | "b" | "B") | ("look", node) | ("seq", [nodes]) | ("alt", [nodes]) | ("rep", node, lo, hi)
Node = tuple[object, ...]


class _Reject(Exception):
    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class _Syntax(Exception):
    pass


_QUANT_RE: Final = re.compile(r"\{([0-9]+)(,([0-9]*))?\}")
_COMMA_QUANT_RE: Final = re.compile(r"\{,[0-9]*\}")
_POSIX_RE: Final = re.compile(r"\[:([A-Za-z]*):\]")
_NAME_RE: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*>")


class _Parser:
    def __init__(self, p: str) -> None:
        self.p = p
        self.i = 0
        self.n = len(p)

    def parse(self) -> Node:
        node = self.alternation(0)
        if self.i < self.n:  # a ")" without "("
            raise _Syntax(f"unbalanced parenthesis at position {self.i}")
        return node

    def alternation(self, depth: int) -> Node:
        branches = [self.sequence(depth)]
        while self.i < self.n and self.p[self.i] == "|":
            self.i += 1
            branches.append(self.sequence(depth))
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def sequence(self, depth: int) -> Node:
        items: list[Node] = []
        while self.i < self.n and self.p[self.i] not in "|)":
            items.append(self.term(depth))
        return items[0] if len(items) == 1 else ("seq", items)

    def term(self, depth: int) -> Node:
        p, i = self.p, self.i
        c = p[i]
        assertion = False
        atom: Node
        if c in "^$":
            self.i += 1
            atom, assertion = ("anchor", c), True
        elif c == "(":
            atom, assertion = self.group(depth)
        elif c == "[":
            atom = ("set", self.char_class())
        elif c == ".":
            self.i += 1
            atom = ("set", _DOT)
        elif c == "\\":
            atom, assertion = self.escape_outside()
        elif c in "*+?":
            raise _Syntax(f"nothing to repeat at position {i}")
        elif c == "{":
            if _QUANT_RE.match(p, i) or _COMMA_QUANT_RE.match(p, i):
                raise _Syntax(f"nothing to repeat at position {i}")
            raise _Reject('has an unescaped "{"; write \\{')
        elif c == "}":
            raise _Reject('has an unescaped "}"; write \\}')
        elif c == "]":
            raise _Reject('has an unescaped "]"; write \\]')
        else:
            self.i += 1
            atom = ("set", _chr(c))
        return self.quantifier(atom, assertion)

    def quantifier(self, atom: Node, assertion: bool) -> Node:
        p = self.p
        i = self.i
        if i >= self.n:
            return atom
        c = p[i]
        lo: int
        hi: int | None
        if c in "*+?":
            lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            end = i + 1
        elif c == "{":
            if _COMMA_QUANT_RE.match(p, i):
                raise _Reject("uses the quantifier {,n}, which is not supported")
            m = _QUANT_RE.match(p, i)
            if m is None:
                raise _Reject('has an unescaped "{"; write \\{')
            lo = int(m.group(1))
            hi = lo if m.group(2) is None else (int(m.group(3)) if m.group(3) else None)
            if hi is not None and hi < lo:
                raise _Syntax(f"min repeat greater than max repeat at position {i}")
            end = m.end()
        else:
            return atom
        if assertion:
            raise _Syntax(f"nothing to repeat at position {i}")
        if end < self.n and p[end] == "?":
            end += 1
        elif end < self.n and p[end] == "+":
            raise _Reject("uses a possessive quantifier, which is not supported")
        if end < self.n and (p[end] in "*+?" or (p[end] == "{" and _QUANT_RE.match(p, end))):
            raise _Syntax(f"multiple repeat at position {end}")
        self.i = end
        return ("rep", atom, lo, hi)

    def group(self, depth: int) -> tuple[Node, bool]:
        p, i = self.p, self.i
        if depth >= MAX_GROUP_DEPTH:
            raise _Reject(f"nests groups more than {MAX_GROUP_DEPTH} deep")
        look = False
        if p.startswith("(?", i):
            rest = p[i + 2 : i + 4]
            if rest[:1] == ":":
                start = i + 3
            elif rest[:1] in ("=", "!"):
                start, look = i + 3, True
            elif rest in ("<=", "<!"):
                raise _Reject("uses a lookbehind, which is not supported")
            elif rest == "P<" or (rest[:1] == "<" and _NAME_RE.match(p, i + 3)):
                raise _Reject("uses a named group, which is not supported")
            elif rest == "P=":
                raise _Reject("uses a backreference, which is not supported")
            elif rest[:1] == "(":
                raise _Reject("uses a conditional group, which is not supported")
            elif rest[:1] == ">":
                raise _Reject("uses an atomic group, which is not supported")
            elif rest[:1] == "#":
                raise _Reject("uses a comment group, which is not supported")
            elif rest[:1] and rest[0] in "aiLmsux-":
                raise _Reject("uses inline flags, which are not supported")
            else:
                raise _Syntax(f"unknown extension ?{rest[:1]} at position {i + 1}")
        else:
            start = i + 1
        self.i = start
        inner = self.alternation(depth + 1)
        if self.i >= self.n:
            raise _Syntax(f"missing ), unterminated subpattern at position {i}")
        self.i += 1  # ")"
        return (("look", inner), True) if look else (inner, False)

    def _hex(self, start: int, count: int) -> int | None:
        digits = self.p[start : start + count]
        if len(digits) == count and all(d in _HEX for d in digits):
            return int(digits, 16)
        return None

    def escape_common(self, in_class: bool) -> CharSet:
        """``\\`` at self.i; the escapes shared by both contexts (everything except \\b \\B and class escapes)."""
        p, i = self.p, self.i
        if i + 1 >= self.n:
            raise _Syntax("bad escape (end of pattern)")
        e = p[i + 1]
        if e in _CONTROL_ESCAPES:
            self.i = i + 2
            return _chr(_CONTROL_ESCAPES[e])
        if e == "x":
            v = self._hex(i + 2, 2)
            if v is None:
                raise _Reject("has an invalid \\x escape; write \\x followed by two hexadecimal digits")
            self.i = i + 4
            return ((v, v),)
        if e == "u":
            if p.startswith("{", i + 2):
                raise _Reject("uses \\u{…}, which is not supported; write \\uHHHH")
            v = self._hex(i + 2, 4)
            if v is None:
                raise _Reject("has an invalid \\u escape; write \\u followed by four hexadecimal digits")
            if 0xD800 <= v <= 0xDBFF and p.startswith("\\u", i + 6):
                low = self._hex(i + 8, 4)
                if low is not None and 0xDC00 <= low <= 0xDFFF:
                    raise _Reject("uses a surrogate pair escape, which is not supported; write the character itself")
            self.i = i + 6
            return ((v, v),)
        if e in _SYNTAX_CHARS or (in_class and e == "-"):
            self.i = i + 2
            return _chr(e)
        if e in "123456789" or e == "k":
            raise _Reject(f"uses a backreference (\\{e}), which is not supported")
        if e in "AZzG":
            raise _Reject(f"uses \\{e}, which is not supported")
        if e in "pP":
            raise _Reject(f"uses a Unicode property escape (\\{e}{{…}}), which is not supported")
        if e == "c":
            raise _Reject("uses a control escape (\\cX), which is not supported")
        if e == "N":
            raise _Reject("uses a named character escape (\\N{…}), which is not supported")
        where = "" if in_class or e != "-" else " outside a character class"
        raise _Reject(f"uses the escape \\{e}, which is not supported{where}")

    def escape_outside(self) -> tuple[Node, bool]:
        e = self.p[self.i + 1 : self.i + 2]
        if e in ("b", "B"):
            self.i += 2
            return ("anchor", e), True
        if e and e in _CLASS_ESCAPES:
            self.i += 2
            return ("set", _CLASS_ESCAPES[e]), False
        return ("set", self.escape_common(False)), False

    def class_atom(self) -> tuple[CharSet, bool]:
        """One class member at self.i: (set, is_single_character)."""
        p, i = self.p, self.i
        c = p[i]
        if c == "[":
            m = _POSIX_RE.match(p, i)
            if m is not None:
                raise _Reject(f"uses a POSIX class [:{m.group(1)}:], which is not supported")
            raise _Reject('has an unescaped "[" inside a character class; write \\[')
        if c == "\\":
            e = p[i + 1 : i + 2]
            if e and e in _CLASS_ESCAPES:
                self.i = i + 2
                return _CLASS_ESCAPES[e], False
            if e == "b":
                self.i = i + 2
                return _chr("\b"), True
            return self.escape_common(True), True
        self.i = i + 1
        return _chr(c), True

    def char_class(self) -> CharSet:
        p = self.p
        start = self.i
        self.i += 1
        negate = self.i < self.n and p[self.i] == "^"
        if negate:
            self.i += 1
        if self.i < self.n and p[self.i] == "]":
            raise _Reject("has an empty character class")
        ranges: list[tuple[int, int]] = []
        while True:
            if self.i >= self.n:
                raise _Syntax(f"unterminated character set at position {start}")
            if p[self.i] == "]":
                self.i += 1
                break
            atom_start = self.i
            lo_set, single = self.class_atom()
            if self.i + 1 < self.n and p[self.i] == "-" and p[self.i + 1] != "]":
                self.i += 1
                hi_set, hi_single = self.class_atom()
                if not (single and hi_single) or hi_set[0][0] < lo_set[0][0]:
                    raise _Syntax(f"bad character range {p[atom_start:self.i]} at position {atom_start}")
                ranges.append((lo_set[0][0], hi_set[0][0]))
            else:
                ranges.extend(lo_set)
        cs = _norm(ranges)
        return _complement(cs) if negate else cs


# ---------------------------------------------------------------- ambiguity analysis
_UNROLL_LIMIT: Final = 10
_POSITION_BUDGET: Final = 2000

Mult = dict[int, int]


class _Glushkov:
    def __init__(self) -> None:
        self.sets: list[CharSet] = []
        self.follow: list[Mult] = []

    def new(self, cs: CharSet) -> int:
        self.sets.append(cs)
        self.follow.append({})
        return len(self.sets) - 1

    def link(self, last: Mult, first: Mult) -> None:
        for p, mp in last.items():
            f = self.follow[p]
            for q, mq in first.items():
                f[q] = min(2, f.get(q, 0) + mp * mq)

    def build(self, node: Node) -> tuple[Mult, Mult, int]:
        kind = node[0]
        if kind == "set":
            cs = node[1]
            assert isinstance(cs, tuple)
            k = self.new(cs)
            return {k: 1}, {k: 1}, 0
        if kind in ("empty", "anchor"):
            return {}, {}, 1
        if kind == "look":
            inner = node[1]
            assert isinstance(inner, tuple)
            self.build(inner)  # analysed for its own loops, not connected to the outside
            return {}, {}, 1
        if kind == "seq":
            items = node[1]
            assert isinstance(items, list)
            first: Mult = {}
            last: Mult = {}
            null = 1
            for item in items:
                f2, l2, n2 = self.build(item)
                self.link(last, f2)
                first = _plus(first, _scale(f2, null))
                last = _plus(l2, _scale(last, n2))
                null = min(2, null * n2)
            return first, last, null
        if kind == "alt":
            items = node[1]
            assert isinstance(items, list)
            first, last, null = {}, {}, 0
            for item in items:
                f2, l2, n2 = self.build(item)
                first, last, null = _plus(first, f2), _plus(last, l2), min(2, null + n2)
            return first, last, null
        # rep
        _, inner, lo, hi = node
        assert isinstance(inner, tuple) and isinstance(lo, int) and (hi is None or isinstance(hi, int))
        if hi is not None and hi <= 1:
            if hi == 0:
                return {}, {}, 1
            f, l, n = self.build(inner)
            return (f, l, n) if lo == 1 else (f, l, min(2, 1 + n))
        if hi is not None and hi <= _UNROLL_LIMIT and len(self.sets) + _size(inner) * hi <= _POSITION_BUDGET:
            return self.build(("seq", [inner] * lo + ([("rep", _nest(inner, hi - lo), 0, 1)] if hi > lo else [])))
        f, l, n = self.build(inner)
        self.link(l, f)
        return f, l, (1 if lo == 0 else n)


def _nest(inner: Node, k: int) -> Node:
    """``x(x(x)?)?`` with ``k`` copies of x (the engine's greedy counter: no choice of which copy matched)."""
    node = inner
    for _ in range(k - 1):
        node = ("seq", [inner, ("rep", node, 0, 1)])
    return node


def _size(node: Node) -> int:
    kind = node[0]
    if kind == "set":
        return 1
    if kind in ("seq", "alt"):
        items = node[1]
        assert isinstance(items, list)
        return sum(_size(x) for x in items)
    if kind in ("look", "rep"):
        inner = node[1]
        assert isinstance(inner, tuple)
        return _size(inner) * (2 if kind == "rep" else 1)
    return 0


def _plus(a: Mult, b: Mult) -> Mult:
    if not b:
        return a
    out = dict(a)
    for k, v in b.items():
        out[k] = min(2, out.get(k, 0) + v)
    return out


def _scale(a: Mult, k: int) -> Mult:
    if k == 0:
        return {}
    if k == 1:
        return a
    return {p: min(2, v * k) for p, v in a.items()}


def _sccs(nodes: Iterable[_T], succ: Callable[[_T], Iterable[_T]]) -> dict[_T, int]:
    """Iterative Tarjan: node -> component id."""
    index: dict[_T, int] = {}
    low: dict[_T, int] = {}
    comp: dict[_T, int] = {}
    stack: list[_T] = []
    on_stack: set[_T] = set()
    counter = 0
    ncomp = 0
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[_T, Iterator[_T]]] = []
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work.append((root, iter(succ(root))))
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(succ(w))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
    return comp


def _exponential(tree: Node) -> bool:
    g = _Glushkov()
    g.build(tree)
    n = len(g.sets)
    follow = g.follow
    # (i) an edge of multiplicity 2 on a cycle
    comp = _sccs(range(n), lambda p: follow[p])
    for p in range(n):
        for q, m in follow[p].items():
            if m >= 2 and comp[p] == comp[q]:
                return True
    # (ii) product automaton: an SCC with a diagonal and an off-diagonal pair
    sets = g.sets
    cache: dict[tuple[int, int], bool] = {}

    def overlap(a: int, b: int) -> bool:
        if a == b:
            return True
        key = (a, b) if a < b else (b, a)
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = _intersects(sets[a], sets[b])
        return hit

    budget = [PRODUCT_BUDGET]

    def succ(pair: tuple[int, int]) -> list[tuple[int, int]]:
        p, q = pair
        budget[0] -= len(follow[p]) * len(follow[q])  # the work, not only the pairs found
        if budget[0] < 0:
            raise _Budget
        out: list[tuple[int, int]] = []
        for p2 in follow[p]:
            for q2 in follow[q]:
                if overlap(p2, q2):
                    out.append((p2, q2))
        budget[0] -= len(out) + 1
        if budget[0] < 0:
            raise _Budget
        return out

    # only components that contain a diagonal pair matter: start from the diagonal pairs on a cycle
    starts = [(p, p) for p in range(n) if any(comp[q] == comp[p] for q in follow[p])]
    try:
        pcomp = _sccs(starts, succ)
    except _Budget:  # fail closed: a pattern the check cannot finish on is not accepted
        return True
    diag: set[int] = set()
    off: set[int] = set()
    for pair, c in pcomp.items():
        (diag if pair[0] == pair[1] else off).add(c)
    return bool(diag & off)


class _Budget(Exception):
    pass


# ---------------------------------------------------------------- polynomial (super-linear) backtracking
STEP_BUDGET: Final = 10**7
_TRIPLE_BUDGET: Final = 300_000
_ALL: Final[CharSet] = ((0, MAX_CP),)


def _anchored(node: Node) -> bool:
    """Every match must start at the beginning of the text (each top-level branch starts with ``^``)."""
    kind = node[0]
    if kind == "anchor":
        return node[1] == "^"
    if kind == "seq":
        items = node[1]
        assert isinstance(items, list)
        return bool(items) and _anchored(items[0])
    if kind == "alt":
        items = node[1]
        assert isinstance(items, list)
        return all(_anchored(b) for b in items)
    return False


def _has_assertion(node: Node) -> bool:
    kind = node[0]
    if kind in ("anchor", "look"):
        return True
    if kind in ("seq", "alt"):
        items = node[1]
        assert isinstance(items, list)
        return any(_has_assertion(x) for x in items)
    if kind == "rep":
        inner = node[1]
        assert isinstance(inner, tuple)
        return _has_assertion(inner)
    return False


def _inter(a: CharSet, b: CharSet) -> CharSet:
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


class _Ambiguity:
    """The Glushkov automaton of a pattern, with the searches `_chain_degree` needs (each charged to
    ``budget``, which raises _Budget when spent)."""

    def __init__(self, tree: Node, prune: bool, budget: list[int]) -> None:
        g = _Glushkov()
        _first, last, _null = g.build(tree)
        self.n = len(g.sets)
        self.sets = g.sets
        self.follow = [list(f) for f in g.follow]
        if prune:
            for p in last:
                self.follow[p] = []
        self.comp = _sccs(range(self.n), lambda p: self.follow[p])
        self.budget = budget
        self.forward: dict[int, set[int]] = {}
        self.pairs: dict[tuple[int, int], CharSet] = {}

    def looping(self) -> list[int]:
        """The positions on a cycle (a loop of the pattern)."""
        comp, follow = self.comp, self.follow
        return [p for p in range(self.n) if any(comp[q] == comp[p] for q in follow[p])]

    def reach(self, start: int) -> set[int]:
        hit = self.forward.get(start)
        if hit is None:
            follow, budget = self.follow, self.budget
            hit, todo = {start}, [start]
            while todo:
                nxt = follow[todo.pop()]
                budget[0] -= len(nxt) + 1
                for q in nxt:
                    if q not in hit:
                        hit.add(q)
                        todo.append(q)
            if budget[0] < 0:
                raise _Budget
            self.forward[start] = hit
        return hit

    def common(self, a: int, b: int) -> CharSet:
        key = (a, b) if a < b else (b, a)
        hit = self.pairs.get(key)
        if hit is None:
            hit = self.pairs[key] = _inter(self.sets[a], self.sets[b])
        return hit

    def ida(self, p: int, q: int) -> bool:
        """A non-empty word v with p -v-> p, p -v-> q and q -v-> q (search in the triple product)."""
        middle = {b for b in self.reach(p) if q in self.reach(b)}
        follow, budget = self.follow, self.budget
        todo = [(p, p, q)]
        seen = {(p, p, q)}
        while todo:
            a, b, c = todo.pop()
            budget[0] -= len(follow[a]) * len(follow[b]) * len(follow[c])
            if budget[0] < 0:
                raise _Budget
            for step in self._steps(p, q, middle, a, b, c):
                if step == (p, q, q):
                    return True
                if step not in seen:
                    seen.add(step)
                    todo.append(step)
        return False

    def _steps(self, p: int, q: int, middle: set[int], a: int, b: int, c: int) -> Iterator[tuple[int, int, int]]:
        """The successors of (a, b, c) in the triple product that stay in the components of p, p→q and q."""
        comp, follow, sets = self.comp, self.follow, self.sets
        for a2 in follow[a]:
            if comp[a2] != comp[p]:
                continue
            for b2 in follow[b]:
                if b2 not in middle:
                    continue
                ab = self.common(a2, b2)
                if not ab:
                    continue
                for c2 in follow[c]:
                    if comp[c2] == comp[q] and _intersects(ab, sets[c2]):
                        yield a2, b2, c2


def _chain_degree(tree: Node, prune: bool, budget: list[int]) -> int:
    """The degree d of the worst-case backtracking work n^d of the automaton of ``tree``.

    A loop gives degree 1; each pair of loops p != q that read one word v as p->p, p->q and q->q (the
    automaton is then polynomially ambiguous, Weber and Seidl's IDA condition) adds one along a chain. With
    ``prune``, the positions that end a match have no successors (the search stops there). Raises _Budget.
    """
    auto = _Ambiguity(tree, prune, budget)
    looping = auto.looping()
    if not looping:
        return 0
    edges = {p: [q for q in looping if q != p and q in auto.reach(p) and auto.ida(p, q)] for p in looping}
    longest: dict[int, int] = {}

    def chain(p: int, stack: frozenset[int]) -> int:
        if p in stack:  # a cycle of ambiguous loops: no polynomial bound
            raise _Budget
        if p not in longest:
            longest[p] = max((1 + chain(q, stack | {p}) for q in edges[p]), default=0)
        return longest[p]

    return 1 + max(chain(p, frozenset()) for p in looping)


@lru_cache(maxsize=1024)
def pattern_degree(p: str) -> int | None:
    """``d`` such that a backtracking search (``re``, JavaScript) of ``p`` may take about n^d steps on n characters
    (0 or 1: linear), or None when the analysis ran out of its budget. ``p`` must pass :func:`check_pattern`.
    An unanchored pattern is searched from every position: it is analysed behind an implicit loop over any character."""
    try:
        tree = _Parser(p).parse()
    except (_Reject, _Syntax):
        return None
    budget = [_TRIPLE_BUDGET]
    try:
        degree = _chain_degree(tree, False, budget)  # the work of the successful start
        if not _anchored(tree):
            prefixed: Node = ("seq", [("rep", ("set", _ALL), 0, None), tree])
            degree = max(degree, _chain_degree(prefixed, not _has_assertion(tree), budget))
    except _Budget:
        return None
    return degree


def max_length_for(degree: int) -> int:
    """The largest n with n**degree within :data:`STEP_BUDGET`."""
    n: int = round(STEP_BUDGET ** (1 / degree))
    while n**degree > STEP_BUDGET:
        n -= 1
    while (n + 1) ** degree <= STEP_BUDGET:
        n += 1
    return n


def cost_problem(p: str, max_length: object) -> str | None:
    """None when a guard's worst case on ``p`` stays within :data:`STEP_BUDGET` backtracking steps: the pattern is
    linear, or the parameter's ``maxLength`` (strings over it are never searched) keeps n^degree within it. Else the
    problem, for ``Parameter "{p}": pattern {problem}`` (rule 117)."""
    degree = pattern_degree(p)
    if degree is None:
        return ("is too complex to bound its matching time (the analysis ran out of its budget); simplify it")
    if degree <= 1:
        return None
    limit = max_length_for(degree)
    if isinstance(max_length, int) and not isinstance(max_length, bool) and max_length <= limit:
        return None
    if isinstance(max_length, (int, float)) and not isinstance(max_length, bool):
        have = f"maxLength {max_length:g} allows more"
    else:
        have = "there is no maxLength"
    return (f"may take polynomial time on some inputs (about n^{degree} backtracking steps for n characters) and "
            f"{have}: give the parameter a maxLength of at most {limit}, which keeps the worst case within the "
            f"budget of 10^7 steps, or anchor the pattern and remove overlapping repetitions")


# ---------------------------------------------------------------- entry point
def _compile_error(p: str) -> str | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(p)
    except re.error as e:
        return str(e)
    except (OverflowError, RecursionError, ValueError) as e:
        return str(e) or type(e).__name__
    return None


@lru_cache(maxsize=1024)
def check_pattern(p: str) -> str | None:
    """``None`` when ``p`` is in the accepted subset, else the problem (``uses a lookbehind, which is not
    supported``, ``is not a valid regular expression: …``, ``may take exponential time …``)."""
    try:
        tree = _Parser(p).parse()
    except _Reject as r:
        return r.problem
    except _Syntax as s:
        return f"is not a valid regular expression: {_compile_error(p) or s}"
    err = _compile_error(p)
    if err is not None:
        return f"is not a valid regular expression: {err}"
    if _exponential(tree):
        return EXPONENTIAL
    return None

"""The pattern subset (the pattern subset) and the exponential-backtracking check."""

from __future__ import annotations

import re
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axag.values.pattern import MAX_GROUP_DEPTH, check_pattern

EXP = "may take exponential time on some inputs (nested quantifiers)"

ACCEPTED = [
    # literals, escaped literals, dot
    "abc", "a b", "é😀", "a-b", "/", r"\/", r"\^\$\\\.\*\+\?\(\)\[\]\{\}\|\/", ".", "a.c", "#", "=", ",", ":",
    # classes
    "[abc]", "[^abc]", "[a-z]", "[A-Za-z0-9_]", "[-a]", "[a-]", "[\\-]", "[a\\-z]", "[\\]]", "[\\[]", "[\\\\]",
    "[.]", "[$^]", "[a^]", "[*+?{}()|]", "[\\d\\s]", "[\\w-]", "[^\\W\\d]", "[\\b]", "[\\x41-\\x5A]",
    "[\\u00e0-\\u00ff]", "[\\t\\n\\r\\f\\v]", "[\\^]", "[/]", "[\\/]", "[\\.]",
    # class escapes, assertions, control escapes, hex escapes
    r"\d\D\w\W\s\S", r"\bword\b", r"\Bx", r"\t\n\r\f\v", r"\x41", r"\xfF", r"\u0041", r"\uD83D", "^$", "^a$",
    # groups, lookahead, alternation
    "(a)", "(?:a)", "(?=a)", "(?!a)", "a|b", "a|", "|", "()", "(?:)", "((a)(b))", "(?=(a))b",
    # quantifiers and lazy forms
    "a*", "a+", "a?", "a{2}", "a{2,}", "a{2,5}", "a{0}", "a{0,0}", "a*?", "a+?", "a??", "a{2}?", "a{2,}?",
    "a{2,5}?", "(ab)*", "[a-z]{3}", "(?:a|b)+",
    # everyday patterns
    "^[A-Z]{2}[0-9]{6}$", "^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$", "^\\+?[0-9 ()-]{7,20}$",
    "^\\d{5}(-\\d{4})?$", "^[A-Z]{3}$", "^#[0-9A-Fa-f]{6}$", "^(\\d{1,3}\\.){3}\\d{1,3}$",
    "^https?://[^\\s/$.?#].[^\\s]*$", "^\\s*(\\w+)\\s*$", "^[a-z]+(?:-[a-z]+)*$", "^(\\d+,)*\\d+$",
    "^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$", "^(?=.*[A-Z])(?=.*\\d).{8,}$", "\\d*\\d*", ".*a.*", "(ab|a)*c",
    "(a|ab)*", "(a|a){3}", "(a+){3}", "^(?:[a-z]+-)*[a-z]+$",
    # the harvested patterns of harvesting: control-to-schema mapping
    "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$",
    "^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$",
    "^[0-9]{4}-(0[1-9]|1[0-2])$", "^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$", "^#[0-9A-Fa-f]{6}$",
    "^(?:[A-Z]{2}[0-9]{4})$",
]


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_accepted(pattern: str) -> None:
    assert check_pattern(pattern) is None


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        # lookbehind
        ("(?<=a)b", "uses a lookbehind, which is not supported"),
        ("(?<!a)b", "uses a lookbehind, which is not supported"),
        # named groups in either syntax
        ("(?P<year>[0-9]{4})", "uses a named group, which is not supported"),
        ("(?<year>[0-9]{4})", "uses a named group, which is not supported"),
        # backreferences
        ("(a)\\1", "uses a backreference (\\1), which is not supported"),
        ("(a)\\9", "uses a backreference (\\9), which is not supported"),
        ("\\k<x>", "uses a backreference (\\k), which is not supported"),
        ("(?P<x>a)(?P=x)", "uses a named group, which is not supported"),
        ("(?P=x)", "uses a backreference, which is not supported"),
        ("[\\1]", "uses a backreference (\\1), which is not supported"),
        # inline flags
        ("(?i)abc", "uses inline flags, which are not supported"),
        ("(?aiLmsux-imsx:a)", "uses inline flags, which are not supported"),
        ("(?-i:a)", "uses inline flags, which are not supported"),
        ("(?s:.)", "uses inline flags, which are not supported"),
        # conditionals, atomic groups, comments
        ("(a)?(?(1)b|c)", "uses a conditional group, which is not supported"),
        ("(?>a+)b", "uses an atomic group, which is not supported"),
        ("(?#comment)a", "uses a comment group, which is not supported"),
        # possessive quantifiers
        ("a*+", "uses a possessive quantifier, which is not supported"),
        ("a++", "uses a possessive quantifier, which is not supported"),
        ("a?+", "uses a possessive quantifier, which is not supported"),
        ("a{2}+", "uses a possessive quantifier, which is not supported"),
        ("a{2,}+", "uses a possessive quantifier, which is not supported"),
        # \A \Z \z \G
        ("\\Aabc", "uses \\A, which is not supported"),
        ("abc\\Z", "uses \\Z, which is not supported"),
        ("abc\\z", "uses \\z, which is not supported"),
        ("\\Gabc", "uses \\G, which is not supported"),
        # \p \P \c \N
        ("\\p{L}+", "uses a Unicode property escape (\\p{…}), which is not supported"),
        ("\\P{Lu}", "uses a Unicode property escape (\\P{…}), which is not supported"),
        ("[\\p{L}]", "uses a Unicode property escape (\\p{…}), which is not supported"),
        ("\\cJ", "uses a control escape (\\cX), which is not supported"),
        ("\\N{EM DASH}", "uses a named character escape (\\N{…}), which is not supported"),
        # POSIX classes
        ("[[:alpha:]]", "uses a POSIX class [:alpha:], which is not supported"),
        ("[a[:digit:]]", "uses a POSIX class [:digit:], which is not supported"),
        # {,n}
        ("a{,3}", "uses the quantifier {,n}, which is not supported"),
        ("a{,}", "uses the quantifier {,n}, which is not supported"),
        # escapes that are not listed
        ("\\:", "uses the escape \\:, which is not supported"),
        ("\\_", "uses the escape \\_, which is not supported"),
        ("\\-", "uses the escape \\-, which is not supported outside a character class"),
        ("\\0", "uses the escape \\0, which is not supported"),
        ("\\a", "uses the escape \\a, which is not supported"),
        ("\\e", "uses the escape \\e, which is not supported"),
        ("\\@", "uses the escape \\@, which is not supported"),
        ("\\ ", "uses the escape \\ , which is not supported"),
        ("\\'", "uses the escape \\', which is not supported"),
        ("[\\:]", "uses the escape \\:, which is not supported"),
        ("[\\B]", "uses the escape \\B, which is not supported"),
        ("\\x4", "has an invalid \\x escape; write \\x followed by two hexadecimal digits"),
        ("\\xg1", "has an invalid \\x escape; write \\x followed by two hexadecimal digits"),
        ("\\u12", "has an invalid \\u escape; write \\u followed by four hexadecimal digits"),
        ("\\u{1F600}", "uses \\u{…}, which is not supported; write \\uHHHH"),
        ("\\uD83D\\uDE00", "uses a surrogate pair escape, which is not supported; write the character itself"),
        # literal ] { } outside a class
        ("a]", 'has an unescaped "]"; write \\]'),
        ("a{", 'has an unescaped "{"; write \\{'),
        ("a{b}", 'has an unescaped "{"; write \\{'),
        ("a{1,2,3}", 'has an unescaped "{"; write \\{'),
        ("{", 'has an unescaped "{"; write \\{'),
        ("a}", 'has an unescaped "}"; write \\}'),
        # [ inside a class, empty classes
        ("[[]", 'has an unescaped "[" inside a character class; write \\['),
        ("[a[b]", 'has an unescaped "[" inside a character class; write \\['),
        ("[]a]", "has an empty character class"),
        ("[]", "has an empty character class"),
        ("[^]", "has an empty character class"),
        ("[^]a]", "has an empty character class"),
        # anything re.compile rejects (and plain syntax errors)
        ("(abc", "is not a valid regular expression: missing ), unterminated subpattern at position 0"),
        ("abc)", "is not a valid regular expression: unbalanced parenthesis at position 3"),
        ("*a", "is not a valid regular expression: nothing to repeat at position 0"),
        ("a|*", "is not a valid regular expression: nothing to repeat at position 2"),
        ("a**", "is not a valid regular expression: multiple repeat at position 2"),
        ("a{2}{3}", "is not a valid regular expression: multiple repeat at position 4"),
        ("[z-a]", "is not a valid regular expression: bad character range z-a at position 1"),
        ("[\\d-z]", "is not a valid regular expression: bad character range \\d-z at position 1"),
        ("[a-\\w]", "is not a valid regular expression: bad character range a-\\w at position 1"),
        ("[abc", "is not a valid regular expression: unterminated character set at position 0"),
        ("\\", "is not a valid regular expression: bad escape (end of pattern) at position 0"),
        ("a{3,2}", "is not a valid regular expression: min repeat greater than max repeat at position 2"),
        ("a{99999999999}", "is not a valid regular expression: the repetition number is too large"),
        ("^*", "is not a valid regular expression: nothing to repeat at position 1"),
        ("\\b+", "is not a valid regular expression: nothing to repeat at position 2"),
        ("(?=a)*", "is not a valid regular expression: nothing to repeat at position 5"),
        ("(?x)", "uses inline flags, which are not supported"),
        ("(?Q)", "is not a valid regular expression: unknown extension ?Q at position 1"),
        ("(" * (MAX_GROUP_DEPTH + 1) + ")" * (MAX_GROUP_DEPTH + 1), "nests groups more than 100 deep"),
    ],
)
def test_rejected(pattern: str, problem: str) -> None:
    assert check_pattern(pattern) == problem


@pytest.mark.parametrize(
    "pattern",
    [
        "(a+)+$", "(a+)+", "(a*)*", "(a|a)+", "(a|aa)+", "(\\w+\\s?)+$", "^(\\w+\\s?)+$", "(\\w|\\d)+",
        "(a*)+b", "(a+)*", "(?:a+)+", "((a+))+", "(a|b|ab)*", "(x+x+)+y", "(a?a?)+", "([a-z]+[0-9]*)+$",
        "^(\\d+)*$", "(.*)*", "(.*a)+", "(?:\\s*\\w*)*$", "^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}$",
        "(?=(a+)+)b", "(a{1,20})+", "(\\w+\\s?){1,30}$", "(a|a?)+", "(\\d|[0-9])*x", "(.|\\s)*$",
    ],
)
def test_exponential(pattern: str) -> None:
    assert check_pattern(pattern) == EXP


def test_every_pattern_checks_fast() -> None:
    import time

    patterns = [
        "(" + "|".join(f"ab{i % 10}" for i in range(300)) + ")*",
        ".*" * 300,
        "[a-z]*" * 500,
        "x" * 20_000,
        "(" * 99 + "a" + "){1,10}" * 99,
    ]
    for p in patterns:
        t = time.perf_counter()
        check_pattern(p)
        assert time.perf_counter() - t < 10  # slack for a busy machine; exponential analysis would not finish


_PIECES = ["a", "b", ".", "\\d", "\\w", "\\s", "\\b", "\\x41", "\\u0041", "[a-c]", "[^a]", "[\\]-]", "(", ")",
           "(?:", "(?=", "(?!", "|", "*", "+", "?", "{2}", "{1,3}", "{2,}", "*?", "^", "$", "\\.", "\\\\", "-",
           "]", "{", "}", "[", "\\-", "\\1", "(?<=", "(?P<n>", "{,2}", "++", "\\Z", "é", " "]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_accepted_patterns_compile(pieces: list[str]) -> None:
    pattern = "".join(pieces)
    problem = check_pattern(pattern)
    assert problem is None or isinstance(problem, str) and problem
    if problem is None:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            re.compile(pattern)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=20))
def test_random_text_never_raises(pattern: str) -> None:
    problem = check_pattern(pattern)
    if problem is None:
        re.compile(pattern)

"""Robustness fuzzing (parsing robustness, test obligations): random bytes and mutated fixtures never raise out of the engine,
never produce an internal error (199), never disturb the other files of a run, and nothing is quadratic."""

from __future__ import annotations

import codecs
import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axag.cli.group import main
from axag.config.settings import Settings
from axag.lint.engine import FileOutcome, Request, check_file

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
SEEDS = sorted(p for p in FIXTURES.rglob("*.html"))
SEED_BYTES = [p.read_bytes() for p in SEEDS]
BOOKING = (FIXTURES / "spec" / "site" / "booking.html").read_bytes()

RUN_CODES = set(range(190, 200))
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def _check(data: bytes, tmp: Path, mode: str, name: str = "fuzz.html") -> FileOutcome:
    path = tmp / name
    request = Request(mode=mode, want_contracts=True)
    return check_file(path, name, name, Settings(base=tmp), request, data=data)


def _assert_sane(data: bytes, tmp: Path, name: str = "fuzz.html", modes: tuple[str, ...] = ("lint", "compile")) -> None:
    for mode in modes:
        out = _check(data, tmp, mode, name)
        codes = [f.code for f in out.findings]
        assert 199 not in codes, [f.message for f in out.findings if f.code == 199]
        assert not out.internal_error
        for f in out.findings:
            assert f.line >= 1 and f.column >= 1
            assert (f.end_line, f.end_column) >= (f.line, f.column)
        if out.read_error:
            assert set(codes) & {191, 192}
        if mode == "compile":
            for contract, *_ in out.contracts:
                json.dumps(contract.meta)


# ---------------------------------------------------------------- mutations

def _mutate(data: bytes, ops: list[tuple[str, int, int]]) -> bytes:
    for op, a, b in ops:
        n = len(data)
        i = a % (n + 1)
        if op == "truncate":
            data = data[:i]
        elif op == "quote":
            data = data[:i] + (b'"', b"'", b">", b"<", b"=", b"&", b"&#", b"]", b"{")[b % 9] + data[i:]
        elif op == "delete":
            data = data[:i] + data[i + 1 + b % 16:]
        elif op == "dup":
            j = min(n, i + b % 200)
            data = data[:j] + data[i:j] + data[j:]
        elif op == "byte":
            data = data[:i] + bytes([b % 256]) + data[i + 1:]
        elif op == "nul":
            data = data[:i] + b"\x00" + data[i:]
        elif op == "badutf8":
            data = data[:i] + (b"\xed\xa0\x80", b"\xff", b"\xc3", b"\xf4\x90\x80\x80", b"\xe2\x80")[b % 5] + data[i:]
        elif op == "nest":
            depth = 1 + b % 3000
            data = data[:i] + b"<div>" * depth + b'<a axag-intent="x.y">' + b"</div>" * depth + data[i:]
    return data


ops = st.lists(
    st.tuples(st.sampled_from(["truncate", "quote", "delete", "dup", "byte", "nul", "badutf8", "nest"]),
              st.integers(0, 1 << 20), st.integers(0, 1 << 16)),
    min_size=1, max_size=6,
)


@FUZZ
@given(seed=st.integers(0, len(SEED_BYTES) - 1), mutations=ops)
def test_mutated_fixtures(tmp_path_factory: pytest.TempPathFactory, seed: int, mutations: list) -> None:
    tmp = tmp_path_factory.mktemp("mut")
    _assert_sane(_mutate(SEED_BYTES[seed], mutations), tmp)


@FUZZ
@given(data=st.binary(max_size=4096))
def test_random_bytes(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    _assert_sane(data, tmp_path_factory.mktemp("rnd"))


@FUZZ
@given(data=st.binary(max_size=512), ext=st.sampled_from([".html", ".vue", ".jinja", ".hbs", ".liquid", ".txt"]))
def test_random_bytes_in_tag(tmp_path_factory: pytest.TempPathFactory, data: bytes, ext: str) -> None:
    doc = b'<template><form axag-intent="a.b" axag-action-type="read" axag-parameters=\'' + data + b"'>" \
          + data + b"</form></template>"
    _assert_sane(doc, tmp_path_factory.mktemp("tag"), "f" + ext)


text_chars = st.characters(codec="utf-8") | st.sampled_from(["\ud800", "\udfff", "\x00", "\r", "\u2028", "\x1b"])


@FUZZ
@given(value=st.text(text_chars, max_size=200), attr=st.sampled_from(
    ["axag-intent", "axag-parameters", "axag-preconditions", "axag-side-effects", "axag", "axag-rate-limit",
     "axag-description", "axag-required-parameters", "axag-constraints", "axag-risk-level"]))
def test_random_attribute_text(tmp_path_factory: pytest.TempPathFactory, value: str, attr: str) -> None:
    esc = value.replace("&", "&amp;").replace('"', "&quot;")
    doc = f'<form axag-intent="t.go" axag-action-type="read" {attr}="{esc}"><input name="q"></form>'
    data = doc.encode("utf-8", "surrogatepass")
    _assert_sane(data, tmp_path_factory.mktemp("attr"))


# ---------------------------------------------------------------- encodings

LABELS = ["utf-8", "UTF8", "latin1", "iso-8859-1", "windows-1252", "cp1252", "iso-8859-15", "koi8-r", "shift_jis",
          "euc-jp", "gb2312", "gbk", "gb18030", "big5", "euc-kr", "utf-16", "utf-16le", "utf-16be", "utf-32",
          "utf-7", "ascii", "us-ascii", "x-user-defined", "mac-roman", "macintosh", "cp437", "cp500", "ibm037",
          "hz", "iso-2022-jp", "rot13", "base64", "hex", "zlib", "bz2", "uu", "quopri", "punycode", "idna",
          "unicode_escape", "raw_unicode_escape", "undefined", "mbcs", "bogus", "", "utf-8-sig", "cp65001",
          "unicode-internal", "x" * 300]
BOMS = [b"", codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE]


@pytest.mark.parametrize("label", LABELS)
def test_every_meta_charset(tmp_path: Path, label: str) -> None:
    body = BOOKING.replace(b'<meta charset="utf-8">', b"")
    for head in (f'<meta charset="{label}">', f"<meta charset={label}>",
                 f'<meta http-equiv="Content-Type" content="text/html; charset={label}">',
                 f'<meta content="text/html; charset={label}" http-equiv="content-type">'):
        data = head.encode("ascii") + body + "é€😀".encode() + b"\xff\xfe\x80"
        _assert_sane(data, tmp_path)


@pytest.mark.parametrize("bom", BOMS, ids=lambda b: b.hex() or "none")
def test_every_bom(tmp_path: Path, bom: bytes) -> None:
    for enc in ("utf-8", "utf-16-le", "utf-16-be"):
        try:
            body = BOOKING.decode("utf-8").encode(enc)
        except UnicodeEncodeError:
            continue
        _assert_sane(bom + body, tmp_path)
        _assert_sane(bom + body[:-1], tmp_path)  # odd length for UTF-16
    _assert_sane(bom, tmp_path)


def test_lone_surrogates_and_nul(tmp_path: Path) -> None:
    _assert_sane(b'<a axag-intent="x.\xed\xa0\x80" axag-description="\xed\xbf\xbf">x</a>', tmp_path)
    _assert_sane(b'<a axag-intent="x.y" axag-description="&#xD800;&#0;&#x110000;">x</a>', tmp_path)
    _assert_sane(b'<a axag-intent="x.y">\x00</a>', tmp_path)
    out = _check(codecs.BOM_UTF16_LE + '<a axag-intent="x.y">\x00</a>'.encode("utf-16-le"), tmp_path, "lint")
    assert 199 not in {f.code for f in out.findings}


# ---------------------------------------------------------------- sizes (bounded time)

def test_huge_attribute_values(tmp_path: Path) -> None:
    big = "a" * (4 << 20)
    doc = (f'<form axag-intent="t.go" axag-action-type="read" axag-description="{big}" '
           f"axag-parameters='[\"{big[:1 << 20]}\"]' axag-preconditions='[\"{big[:1 << 20]} is after x\"]'>"
           f'<input name="q" pattern="{big[:100000]}"></form>')
    t0 = time.perf_counter()
    _assert_sane(doc.encode(), tmp_path, modes=("lint",))
    elapsed = time.perf_counter() - t0
    print(f"huge attribute values: {elapsed:.2f}s")
    assert elapsed < 60


def test_many_attributes_on_one_element(tmp_path: Path) -> None:
    # 10k attributes: lxml (libxml2) itself is quadratic in the attributes of one start tag (its duplicate
    # check): 100k attributes take ~50 s in a bare lxml.html.fromstring, outside axag's control.
    attrs = " ".join(f'axag-x{i}="{i}" data-{i}="v"' for i in range(5_000))
    doc = f'<form axag-intent="t.go" axag-action-type="read" {attrs}><input name="q"></form>'
    t0 = time.perf_counter()
    _assert_sane(doc.encode(), tmp_path, modes=("lint",))
    elapsed = time.perf_counter() - t0
    print(f"10k attributes: {elapsed:.2f}s")
    assert elapsed < 60


def test_deep_nesting(tmp_path: Path) -> None:
    depth = 10_000
    doc = ("<div axag-scope='user'>" * depth + '<button axag-intent="t.go" axag-action-type="read">x</button>'
           + "</div>" * depth)
    t0 = time.perf_counter()
    _assert_sane(doc.encode(), tmp_path, modes=("compile",))
    elapsed = time.perf_counter() - t0
    print(f"deep nesting: {elapsed:.2f}s")
    assert elapsed < 60


def test_twenty_megabyte_single_line(tmp_path: Path) -> None:
    unit = '<span class="c">text &amp; more</span><a href="#">go</a>' * 200 + \
        '<a axag-intent="t.go" axag-description="x\u00e9 &lt;" href="#">go</a><!-- c --><script>var a="<a axag-intent=1>"</script>'
    doc = ("<html><body>" + unit * (20_000_000 // len(unit)) + "</body></html>").encode()
    assert b"\n" not in doc and len(doc) > 19_000_000
    t0 = time.perf_counter()
    out = _check(doc, tmp_path, "lint")
    elapsed = time.perf_counter() - t0
    print(f"20 MB single line: {elapsed:.2f}s, {len(out.findings)} findings")
    assert 199 not in {f.code for f in out.findings}
    assert len(out.findings) > 100
    assert elapsed < 60


def test_fifty_thousand_annotated_elements(tmp_path: Path) -> None:
    parts = ["<html><body>"]
    for i in range(50_000):
        parts.append(f'<button id="b{i}" axag-intent="e{i}.go" axag-action-type="read" axag-risk-level="none" '
                     f'axag-description="Go {i}">b</button>\n')
    parts.append("</body></html>")
    doc = "".join(parts).encode()
    t0 = time.perf_counter()
    out = _check(doc, tmp_path, "compile")
    elapsed = time.perf_counter() - t0
    print(f"50k annotated elements: {elapsed:.2f}s, {len(out.contracts)} contracts")
    assert 199 not in {f.code for f in out.findings}
    assert len(out.contracts) == 50_000
    assert elapsed < 60  # generous: the machine running the suite may be shared


# ---------------------------------------------------------------- a bad file does not disturb a good one

def _lint_json(args: list[str], cwd: Path) -> tuple[int, list[dict]]:
    import os

    old = Path.cwd()
    os.chdir(cwd)
    try:
        res = CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)
    assert res.exit_code in (0, 1), res.output
    return res.exit_code, json.loads(res.stdout)["findings"]


BAD_FILES = [b"\x00\x01\x02binary", b"\xff\xfe\xff\xff\x00", b"<a axag-intent='" + b"\xed\xa0\x80" * 10,
             b"<" * 5000, b"<form axag-parameters='[" * 300, b"\xef\xbb\xbf<<>>\r\r\r\n", b""]


@pytest.mark.parametrize("bad", BAD_FILES, ids=range(len(BAD_FILES)))
def test_bad_file_does_not_disturb_good(tmp_path: Path, bad: bytes) -> None:
    (tmp_path / "good.html").write_bytes(BOOKING)
    _, alone = _lint_json(["lint", "--isolated", "--output-format", "json", "--jobs", "1", "good.html"], tmp_path)
    (tmp_path / "bad.html").write_bytes(bad)
    _, both = _lint_json(["lint", "--isolated", "--output-format", "json", "--jobs", "1", "good.html", "bad.html"],
                         tmp_path)
    assert [f for f in both if f["path"] == "good.html"] == alone
    assert not any(str(f["code"]).endswith("199") for f in both)


@FUZZ
@given(seed=st.integers(0, len(SEED_BYTES) - 1), mutations=ops)
def test_cli_compile_mutated(tmp_path_factory: pytest.TempPathFactory, seed: int, mutations: list) -> None:
    tmp = tmp_path_factory.mktemp("cli")
    (tmp / "site").mkdir()
    (tmp / "site" / "m.html").write_bytes(_mutate(SEED_BYTES[seed], mutations))
    import os

    old = Path.cwd()
    os.chdir(tmp)
    try:
        res = CliRunner().invoke(main, ["compile", "--isolated", "--keep-going", "--jobs", "1", "-o", "t.json",
                                        "--output-format", "json", "site"])
    finally:
        os.chdir(old)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code in (0, 1), res.output
    findings = json.loads(res.stdout)["findings"] if res.stdout.strip() else []
    assert not any(str(f["code"]).endswith("199") for f in findings)
    if (tmp / "t.json").exists():
        json.loads((tmp / "t.json").read_text("utf-8"))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(seed=st.integers(0, len(SEED_BYTES) - 1), mutations=ops)
def test_cli_fix_mutated(tmp_path_factory: pytest.TempPathFactory, seed: int, mutations: list) -> None:
    """lint --fix on a mutated fixture: no exception, no 199; a second --fix changes nothing (idempotent)."""
    tmp = tmp_path_factory.mktemp("fix")
    target = tmp / "m.html"
    target.write_bytes(_mutate(SEED_BYTES[seed], mutations))
    import os

    old = Path.cwd()
    os.chdir(tmp)
    try:
        runs = []
        for _ in range(2):
            res = CliRunner().invoke(main, ["lint", "--isolated", "--jobs", "1", "--fix", "--output-format", "json",
                                            "m.html"])
            assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
            assert res.exit_code in (0, 1), res.output
            findings = json.loads(res.stdout)["findings"]
            assert not any(str(f["code"]).endswith("199") for f in findings), [f["message"] for f in findings]
            runs.append(target.read_bytes())
    finally:
        os.chdir(old)
    assert runs[0] == runs[1]


def test_bad_files_with_workers(tmp_path: Path) -> None:
    """The same good file beside every bad one, with worker processes: identical findings for the good file."""
    (tmp_path / "good.html").write_bytes(BOOKING)
    for i, bad in enumerate(BAD_FILES):
        (tmp_path / f"bad{i}.html").write_bytes(bad)
    # --no-cache: the workers do the work instead of reading the first run's results
    _, one = _lint_json(["lint", "--isolated", "--output-format", "json", "--jobs", "1", "--no-cache", "."], tmp_path)
    _, two = _lint_json(["lint", "--isolated", "--output-format", "json", "--jobs", "2", "--no-cache", "."], tmp_path)
    assert one == two
    assert not any(str(f["code"]).endswith("199") for f in two)


def test_worker_crash_is_one_finding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker process that dies (a crash in a C extension, the OOM killer) costs one 199 for its file; every
    other file's findings are those of a --jobs 1 run."""
    import os

    import axag.batch.workers as par

    for i in range(12):
        (tmp_path / f"f{i:02d}.html").write_bytes(BOOKING if i % 2 else BAD_FILES[2])
    _, serial = _lint_json(["lint", "--isolated", "--output-format", "json", "--jobs", "1", "--no-cache", "."],
                           tmp_path)
    real = par.check_file
    parent = os.getpid()

    def dies(path: Path, *args: object, **kwargs: object) -> FileOutcome:
        if path.name == "f05.html" and os.getpid() != parent:
            os._exit(139)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(par, "check_file", dies)
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        res = CliRunner().invoke(main, ["lint", "--isolated", "--output-format", "json", "--jobs", "2", "--no-cache",
                                        "."])
    finally:
        os.chdir(old)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code == 2, res.output
    parallel = json.loads(res.stdout)["findings"]
    crashed = [f for f in parallel if f["path"] == "f05.html"]
    assert [f["code"] for f in crashed] == ["AXAG-LINT-199"]
    assert "worker process" in crashed[0]["message"]
    assert [f for f in parallel if f["path"] != "f05.html"] == [f for f in serial if f["path"] != "f05.html"]


@pytest.mark.parametrize("attr", ["axag-required-parameters", "axag-preconditions", "axag-parameter-items", "axag"])
def test_deeply_nested_json_values(tmp_path: Path, attr: str) -> None:
    depth = 50_000
    for val in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth, "[" * depth,
                '[{"name":"q","type":"array","items":' + '{"type":"array","items":' * depth + "{}" + "}" * depth + "}]"):
        doc = (f'<form axag-intent="t.go" axag-action-type="read" {attr}=\'{val}\'>'
               f"<input name=\"q\" axag-parameter-items='{val}'></form>")
        t0 = time.perf_counter()
        _assert_sane(doc.encode(), tmp_path)
        assert time.perf_counter() - t0 < 30

"""Injection (output formats, code-generation guarantees): hostile text in every annotation attribute cannot break or forge any report
format, nor inject code into generated guards (Python; TypeScript when tsc is available)."""

from __future__ import annotations

import html
import importlib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from axag.cli.group import main
from axag.vocabulary import ATTRIBUTES

REPO = Path(__file__).resolve().parents[2]
TSC = REPO / "node_modules" / ".bin" / "tsc"
_SEQ = itertools.count()

EVIL_PARTS = ['"', "'", "\\", '"""', "*/", "/*", "${x}", "{{y}}", "{% z %}", "]]>", "<![CDATA[", "</script>",
              "<!--", "-->", "\n", "\r\n", "\r", "\u2028", "\u2029", "\x1b[31m", "\x1b]0;title\x07", "\x1b[2J",
              "\x07", "\x08", "\x0b", "\x0c", "\x7f", "\x85", "\u200e", "\u202e", "%", "%0A", "::error::",
              ",", ":", "&", "&amp;", "\ufeff", "\U0001f600", "`", "#{", "#", "\t"]
EVIL = "EVIL" + "".join(EVIL_PARTS) + "END"
# template constructs make a value dynamic in .html (dynamic values, the action is left out): split them for compile
STATIC_EVIL = EVIL.replace("${", "$ {").replace("{{", "{ {").replace("{%", "{ %")
SGR = re.compile(r"\x1b\[[0-9;]*m")
FORMATS = ["full", "concise", "json", "json-lines", "github", "gitlab", "sarif", "junit"]


CHAR_REFS = "&#27;[32m&#0;&#x9b;&#13;&#10;&#x2028;"  # control characters written as character references


def _attr(value: str) -> str:
    """An attribute value in double quotes: the raw text with only & and " encoded."""
    return html.escape(value, quote=True).replace("&#x27;", "'")


def _json_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _hostile_doc() -> str:
    """One element with the hostile text in every annotation attribute (plus a control and a macro)."""
    attrs = []
    for name in ATTRIBUTES:
        if name == "axag":
            continue
        attrs.append(f'{name}="{_attr(STATIC_EVIL)}{CHAR_REFS}"')
    attrs.append(f'axag-{_attr("x" + EVIL[:20])}="1"')  # unknown attribute with hostile name
    control = " ".join(f'{n}="{_attr(STATIC_EVIL)}"' for n in ATTRIBUTES if n.startswith("axag-parameter"))
    return (f'<!-- axag-disable-next-line {EVIL} -->\n<form {" ".join(attrs)}>\n'
            f'<input name="q" {control}>\n</form>\n<div axag="{_attr(EVIL)}"></div>\n'
            f'<button axag-intent="{_attr(EVIL)}" axag-action-type="read">x</button>\n'
            f'<button axag-intent="a.b" axag-action-type="{_attr(STATIC_EVIL)}" axag-risk-level="{_attr(STATIC_EVIL)}" '
            f"axag-required-parameters='[{{\"name\": \"q\", \"{_attr(STATIC_EVIL)}\": 1}}]'>y</button>\n")


def _valid_doc() -> str:
    """A compilable element whose free-text attributes all carry the hostile text."""
    text = STATIC_EVIL
    params = json.dumps([{"name": "q", "type": "string", "description": text, "enum": [text, "b"],
                          "default": text, "examples": [text]},
                         {"name": "n", "type": "object", "properties": {"k": {"type": "string", "const": text}}}],
                        ensure_ascii=False)
    return (f'<form axag-intent="evil.send" axag-action-type="write" axag-risk-level="high" '
            f'axag-idempotent="false" axag-confirmation-required="true" '
            f'axag-confirmation-message="{_attr(text + " {{q}}")}" axag-description="{_attr(text)}" '
            f'axag-side-effects="{_attr(_json_str(["effect", ]))}" '
            f'axag-preconditions="{_attr(json.dumps([text], ensure_ascii=False))}" '
            f'axag-postconditions="{_attr(json.dumps([text], ensure_ascii=False))}" '
            f'axag-required-parameters="{_attr(params)}"></form>\n')


def _invoke(args: list[str], cwd: Path) -> Any:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args)
    finally:
        os.chdir(old)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("inj")
    (root / "evil.html").write_text(_hostile_doc(), encoding="utf-8", newline="")
    (root / f"we{EVIL_PARTS[1]}ird, na:me %0A ${{x}}.html").write_text(_hostile_doc(), encoding="utf-8", newline="")
    return root


def _lint(root: Path, fmt: str, *extra: str) -> tuple[str, Any]:
    res = _invoke(["lint", "--isolated", "--jobs", "1", "--output-format", fmt, *extra, "."], root)
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code == 1, res.output
    return res.stdout, res


def _no_raw_controls(text: str, *, allow_sgr: bool) -> None:
    if allow_sgr:
        text = SGR.sub("", text)
    bad = sorted({f"U+{ord(c):04X}" for c in text if (ord(c) < 32 and c not in "\n") or 0x7F <= ord(c) < 0xA0
                  or c in "\u2028\u2029\u202e"})
    assert not bad, bad


def _json_count(root: Path) -> int:
    out, _ = _lint(root, "json")
    return len(json.loads(out)["findings"])


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_survives(hostile: Path, fmt: str) -> None:
    count = _json_count(hostile)
    assert count > 20
    extra = ("--color", "always") if fmt == "full" else ("--color", "never")
    out, _ = _lint(hostile, fmt, *extra)
    if fmt == "full":
        _no_raw_controls(out, allow_sgr=True)
        assert "\x1b[" in out  # rich did colour it
    elif fmt == "concise":
        _no_raw_controls(out, allow_sgr=False)
        lines = [ln for ln in out.splitlines() if ln.strip()]
        assert len(lines) == count + 1  # one per finding plus the summary
    elif fmt == "json":
        assert len(json.loads(out)["findings"]) == count
    elif fmt == "json-lines":
        lines = out.splitlines()
        assert len(lines) == count
        for ln in lines:
            json.loads(ln)
    elif fmt == "gitlab":
        assert len(json.loads(out)) == count
    elif fmt == "sarif":
        doc = json.loads(out)
        assert len(doc["runs"][0]["results"]) >= count
    elif fmt == "junit":
        root = ET.fromstring(out.encode("utf-8"))
        assert len(root.findall(".//failure")) == count
        assert "\x1b" not in out
    elif fmt == "github":
        lines = out.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        workflow = [ln for ln in lines if ln.startswith("::")]
        assert len(workflow) == count == len(lines), lines[:5]
        for ln in workflow:
            # CR and LF are escaped (%0D/%0A); other characters pass as data (output formats: only %, CR, LF), see report
            assert "\r" not in ln
            assert re.match(r"^::(error|warning|notice) file=[^:,]*,line=\d+,endLine=\d+(,col=\d+,endColumn=\d+)?,"
                            r"title=axag \([^)]*\)::", ln), ln
            # no second workflow command hides in the message
            assert ln.count("::") == 2 + ln.split("::", 2)[2].count("::"), ln
            assert "::error::" not in ln.split("::", 2)[2] or "%" in ln


def test_github_properties_escape(hostile: Path) -> None:
    out, _ = _lint(hostile, "github")
    for ln in out.split("\n")[:-1]:
        props = ln.split("::", 2)[1]
        # file= of the weird file name: ',' and ':' are escaped inside properties
        assert props.count(",") in (3, 5), props
    assert "file=we'ird%2C na%3Ame %250A ${x}.html," in out


def test_output_files_and_stdout_formats(hostile: Path, tmp_path: Path) -> None:
    args = ["lint", "--isolated", "--jobs", "1"]
    for fmt in FORMATS:
        args += ["--output-format", f"{fmt}:{tmp_path / fmt}"]
    res = _invoke([*args, "."], hostile)
    assert res.exit_code == 1, res.output
    ET.parse(tmp_path / "junit")
    json.loads((tmp_path / "sarif").read_text("utf-8"))
    _no_raw_controls((tmp_path / "full").read_text("utf-8"), allow_sgr=False)


# ---------------------------------------------------------------- compile + guards

@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("injc")
    (root / "site").mkdir()
    (root / "site" / "evil.html").write_text(_valid_doc(), encoding="utf-8", newline="")
    res = _invoke(["compile", "--isolated", "--jobs", "1", "site", "-o", "tools.json"], root)
    assert res.exit_code == 0, res.output
    doc = json.loads((root / "tools.json").read_text("utf-8"))
    text = json.dumps(doc, ensure_ascii=False)
    assert "EVIL" in text and "\\u001b" in text  # the hostile text did reach the tools file, as data
    return root, doc


def test_python_guards_import_and_run_without_executing_text(compiled: tuple[Path, dict[str, Any]],
                                                             tmp_path: Path) -> None:
    root, doc = compiled
    name = f"axag_robust_inj_{next(_SEQ)}"
    res = _invoke(["guards", str(root / "tools.json"), "-o", str(tmp_path / name)], root)
    assert res.exit_code == 0, res.output
    src = (tmp_path / name / "_guards.py").read_text("utf-8")
    assert all(ord(c) < 128 for c in src)  # every non-ASCII character is escaped
    assert "\x1b" not in src and "EVIL" in src
    sys.path.insert(0, str(tmp_path))
    try:
        mod = importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))
    tool = doc["tools"][0]
    guard = mod.GUARDS[tool["name"]]
    pre = importlib.import_module(name + ".preconditions")
    stubs = [n for n in dir(pre) if n.startswith("evil")]
    assert len(stubs) == 1
    text = STATIC_EVIL
    # the stub is user-owned; a failing precondition refuses with exactly the (hostile) precondition text
    setattr(pre, stubs[0], lambda *a: False)
    refused = guard.check({"q": text, "n": {"k": text}})
    assert refused.permission == "precondition_failed", refused.to_dict()
    assert json.dumps(tool["_meta"]["org.axag/action"]["preconditions"][0]["text"]) in json.dumps(refused.to_dict())
    setattr(pre, stubs[0], lambda *a: True)
    result = guard.check({"q": text, "n": {"k": text}})
    assert result.permission == "confirmation_required", result.to_dict()
    bad = guard.check({"q": "nope", "n": {"k": "x"}})
    assert bad.permission == "constraint_violated"
    # every constant of the generated module equals its source value
    schema = dict(tool["inputSchema"])
    schema.pop("$schema", None)
    guards_mod = importlib.import_module(name + "._guards")
    consts = [v for k, v in vars(guards_mod).items() if k.startswith("_SCHEMA_")]
    assert consts == [schema]


def test_typescript_guards_compile(compiled: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    root, _ = compiled
    out = tmp_path / "ts"
    res = _invoke(["guards", str(root / "tools.json"), "-o", str(out), "--lang", "typescript"], root)
    assert res.exit_code == 0, res.output
    src = (out / "guards.ts").read_text("utf-8")
    assert all(ord(c) < 128 for c in src) and "\x1b" not in src
    if not TSC.exists() or shutil.which("node") is None:
        if os.environ.get("CI"):
            pytest.fail("tsc is required in CI")
        return  # checked below only when tsc is available locally
    r = subprocess.run([str(TSC), "--strict", "--noEmit", "--target", "ES2022", "--module", "NodeNext",
                        "--moduleResolution", "NodeNext", str(out / "guards.ts")], capture_output=True, text=True,
                       check=False, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr

"""Every command that reads a tools file validates it the same way, and the e-mail format is
HTML's valid e-mail address grammar in the Python and TypeScript runtimes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axag.api import compile_paths
from axag.compile.serialize import dumps
from tests.conftest import run_axag

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "fixtures" / "site"


def loosened(tmp_path: Path) -> Path:
    doc, _ = compile_paths([SITE], root=str(SITE))
    doc["tools"][0]["inputSchema"]["additionalProperties"] = True  # the guards would accept any argument
    (tmp_path / "new.json").write_text(dumps(doc), encoding="utf-8")
    return tmp_path / "new.json"


@pytest.mark.parametrize("command", [["catalogue", "old.json", "new.json", "-o", "diff.html"],
                                     ["catalogue", "new.json", "-o", "diff.html"],
                                     ["guards", "new.json", "-o", "g"]])
def test_a_tools_file_guards_and_serve_reject_is_rejected_by_every_command(command: list[str],
                                                                           tmp_path: Path) -> None:
    doc, _ = compile_paths([SITE], root=str(SITE))
    (tmp_path / "old.json").write_text(dumps(doc), encoding="utf-8")
    loosened(tmp_path)
    res = run_axag(command, cwd=tmp_path)
    assert res.exit_code == 2, res.output
    assert "new.json is not a valid MCP tools file: /tools/0/inputSchema/additionalProperties" in res.stderr
    assert "No tool changed" not in res.output
    assert not (tmp_path / "diff.html").exists() and not (tmp_path / "g").exists()


def test_serve_rejects_the_same_file(tmp_path: Path) -> None:
    res = run_axag(["serve", str(loosened(tmp_path)), "--state", str(tmp_path / "s.sqlite"), "--allow-unbound"])
    assert res.exit_code == 2
    assert "new.json is not a valid MCP tools file: /tools/0/inputSchema/additionalProperties" in res.stderr


# ---------------------------------------------------------------------------------------------- e-mail
VALID = ["a@b.c", "ann@example.org", "a.b+c@x-y.example", "x@localhost", "!#$%&'*+/=?^_`{|}~-@a.b", "a..b@c.d",
         ".a@b.c"]
INVALID = ["<a@b.c>", "a@b.c>", "Ann <a@b.c>", "a b@c.d", "a@b c", "a@-b.c", "a@b-.c", "a@b..c", "a@.b", "a@",
           "@b", "a@b.c\n", "ä@b.c", "a@bä.c", "a@[127.0.0.1]", '"a"@b.c', "a@b.c,d@e.f", "a@" + "b" * 64 + ".c",
           "a@b@c", ""]


def html_email(value: str) -> bool:
    """HTML's grammar, written out independently of the runtimes (WHATWG, "valid e-mail address")."""
    import re

    local = re.compile(r"[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+")
    label = re.compile(r"[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?")
    if value.count("@") != 1:
        return False
    user, domain = value.split("@")
    return (local.fullmatch(user) is not None and value.isascii()
            and all(len(part) <= 63 and label.fullmatch(part) is not None for part in domain.split(".")))


def test_the_python_runtime_checks_html_e_mail_addresses() -> None:
    from axag.values.pyruntime import check_format

    assert [v for v in VALID if not check_format("email", v)] == []
    assert [v for v in INVALID if check_format("email", v)] == []


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(alphabet="ab.@<>-_ +\"[]:\n", max_size=12), st.text(max_size=8),
                 st.sampled_from(VALID + INVALID)))
def test_python_e_mail_checks_are_htmls_grammar(value: str) -> None:
    from axag.values.pyruntime import check_format

    assert check_format("email", value) is html_email(value)


def test_the_typescript_runtime_agrees(tmp_path: Path) -> None:
    from tests.guards.test_typescript import compile_ts, run_node, write_ts

    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "m.html").write_text(
        '<form action="/m" method="post" axag-intent="mail.send" axag-action-type="write" axag-risk-level="low" '
        'axag-idempotent="false" axag-side-effects=\'["x"]\' axag-description="Send" axag-scope="user">'
        '<label>To <input type="email" name="to" required></label><button>Send</button></form>', encoding="utf-8")
    doc, _ = compile_paths([tmp_path / "site"], root=str(tmp_path / "site"))
    write_ts(doc, tmp_path / "ts")
    out = compile_ts(tmp_path / "ts")
    values = VALID + INVALID
    got = run_node(out, [{"op": "check", "tool": "mail_send", "args": {"to": v}, "view": "model"} for v in values])
    verdicts = {v: g["success"] or g["permission"] != "constraint_violated" for v, g in zip(values, got, strict=True)}
    assert verdicts == {v: v in VALID for v in values}, json.dumps(got[:2])

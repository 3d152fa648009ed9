"""docs/: the vocabulary page is generated from axag/vocabulary/__init__.py and up to date; every
example of the preconditions page is in the grammar, with the form its row names."""

from __future__ import annotations

import json
import re
from pathlib import Path

from axag.model.relational import parse_relation
from tests.conftest import run_axag

DOCS = Path(__file__).resolve().parents[2] / "docs"
DOC = DOCS / "vocabulary.md"

# first words of each row of the forms table -> the form its examples must parse to
ROW_FORMS = {
    "NAME OP OPERAND": {"less_than_or_equal", "greater_than_or_equal"},
    "NAME is after": {"greater_than"},
    "NAME is before": {"less_than"},
    "NAME is on or after": {"greater_than_or_equal"},
    "NAME is on or before": {"less_than_or_equal"},
    "NAME requires": {"requires"},
    "NAME and NAME": {"mutually_exclusive"},
    "exactly one of": {"exactly_one_of"},
    "at least one of": {"at_least_one_of"},
    "NAME is required when NAME is VALUE": {"required_when_equal"},
    "NAME is required when NAME is given": {"required_when_present"},
    "NAME differs": {"not_equal"},
}


def test_vocabulary_page_is_up_to_date() -> None:
    """Regenerate with `python scripts/generate_docs.py`."""
    from axag.vocabulary.export import markdown

    assert DOC.read_text(encoding="utf-8") == markdown()


def test_vocabulary_page_lists_every_attribute() -> None:
    from axag import vocabulary as V

    text = DOC.read_text(encoding="utf-8")
    assert [n for n in V.ATTRIBUTES if n != "axag" and f"| `{n}` |" not in text] == []


def test_every_precondition_example_is_in_the_grammar() -> None:
    text = (DOCS / "preconditions.md").read_text(encoding="utf-8")
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in text.splitlines()
            if line.startswith("| `")]
    assert len(rows) == len(ROW_FORMS)
    for template, example, _meaning in rows:
        forms = next(f for start, f in sorted(ROW_FORMS.items(), key=lambda kv: -len(kv[0]))
                     if template.strip("`").startswith(start))
        examples = re.findall(r"`([^`]*)`", example)
        assert examples, template
        for item in examples:
            relation = parse_relation(item)
            assert relation is not None and relation.form in forms, (template, item)
    assert parse_relation("end_date is later than start_date") is None  # the page's counter-example


def test_the_pages_first_example_compiles_as_described(tmp_path: Path) -> None:
    text = (DOCS / "preconditions.md").read_text(encoding="utf-8")
    html = re.search(r"```html\n(.*?)```", text, re.DOTALL)
    assert html is not None
    (tmp_path / "a.html").write_text(html.group(1) + "<button>Book</button></form>\n")
    res = run_axag(["compile", "--isolated", "a.html", "-o", "-"], cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    pre = json.loads(res.stdout)["tools"][0]["_meta"]["org.axag/action"]["preconditions"]
    assert [(p["text"], p["kind"]) for p in pre] == [
        ("room_available", "state"), ("check_out is after check_in", "relational"), ("guests <= 10", "relational")]

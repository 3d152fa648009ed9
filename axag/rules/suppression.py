"""Suppression comments (SPEC §12.5): a malformed directive (143) and a directive that suppresses nothing (133).
The engine reads the comments after the other rules ran (`axag.lint.suppress`) and records these as facts;
these rules judge them."""

from __future__ import annotations

from axag.model.facts import Kind
from axag.rules.facts import judge

judge(133, Kind.UNUSED_SUPPRESSION)
judge(143, Kind.BAD_DIRECTIVE)

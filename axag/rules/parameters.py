"""Parameters (SPEC §4, §5): the declared lists, their keys and coherence, the harvested form controls and
their merge. The model builds the parameters (`axag.model.declared`, `params`, `harvest`) and records what
it observed as facts; these rules judge them."""

from __future__ import annotations

from axag.model.facts import Kind
from axag.rules.facts import judge

judge(8, Kind.IN_BOTH_LISTS)
judge(29, Kind.CONTROL_WITHOUT_NAME, index=0)
judge(29, Kind.CONTROL_NAMED_BY_ID, index=1)
judge(32, Kind.HARVESTED_WITHOUT_DESCRIPTION)
judge(110, Kind.BAD_PARAMETER_KEY)
judge(115, Kind.INCOHERENT)
judge(116, Kind.VALUE_OUTSIDE_SCHEMA)
judge(118, Kind.REPEATED_PARAMETER)
judge(119, Kind.CONTROL_NAME_CONFLICT)
judge(120, Kind.UNUSED_CONTROL_ATTRIBUTE)
judge(142, Kind.TYPE_CONFLICT)

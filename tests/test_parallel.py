"""How --jobs hands files to worker processes: biggest first; outcomes come back in file order whatever the order
of work (the CLI tests compare whole outputs for --jobs 1 and 2)."""

from __future__ import annotations

from axag.parallel import biggest_first


def test_biggest_first_keeps_file_order_among_equals() -> None:
    assert biggest_first([10, 30, 10, 30, 5]) == [1, 3, 0, 2, 4]
    assert biggest_first([]) == []

"""How --jobs hands files to worker processes: biggest first, in groups of about a megabyte that shrink towards
the end; outcomes come back in file order whatever the order of work (the CLI tests compare whole outputs)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from axag.parallel import GROUP_BYTES, _groups, biggest_first


def test_biggest_first_keeps_file_order_among_equals() -> None:
    assert biggest_first([10, 30, 10, 30, 5]) == [1, 3, 0, 2, 4]
    assert biggest_first([]) == []


@given(st.lists(st.integers(min_value=0, max_value=3 * GROUP_BYTES), max_size=300))
def test_groups_cover_every_file_once_in_order(sizes: list[int]) -> None:
    groups = _groups(sizes)
    assert [i for a, b in groups for i in range(a, b)] == list(range(len(sizes)))
    assert all(a < b for a, b in groups)
    # no group goes on past a megabyte (a file of a megabyte or more is a group of its own)
    for a, b in groups:
        assert sum(sizes[a:b - 1]) < GROUP_BYTES


def test_groups_shrink_towards_the_end() -> None:
    sizes = [100_000] * 500  # 50 MB of 100 KB pages
    groups = _groups(sizes)
    lengths = [b - a for a, b in groups]
    assert lengths[0] == 11  # about a megabyte
    assert lengths[-1] == 1  # the last pages go one by one
    assert lengths == sorted(lengths, reverse=True)

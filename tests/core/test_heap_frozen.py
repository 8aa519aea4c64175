"""core.heap.heap_frozen: the heap is out of the collector's passes inside, back after, once."""

from __future__ import annotations

import gc

import pytest

from core.heap import heap_frozen


def test_the_heap_is_frozen_inside_and_thawed_after_nested_blocks() -> None:
    # Counts can only fall inside a block (a frozen object that dies leaves the permanent
    # generation); a second freeze or an early thaw would show as a rise or a zero.
    assert gc.get_freeze_count() == 0
    with heap_frozen():
        frozen = gc.get_freeze_count()
        assert frozen > 0
        with heap_frozen():  # nested: no second freeze
            made = [[i] for i in range(1000)]  # made inside: collected as usual, not frozen
            assert 0 < gc.get_freeze_count() <= frozen
        assert 0 < gc.get_freeze_count() <= frozen  # the inner block did not thaw
        del made
    assert gc.get_freeze_count() == 0


def test_an_error_inside_still_thaws() -> None:
    with pytest.raises(RuntimeError), heap_frozen():
        raise RuntimeError("boom")
    assert gc.get_freeze_count() == 0

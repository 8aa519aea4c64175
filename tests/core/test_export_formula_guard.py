"""CSV exports guard text a spreadsheet would run as a formula: ASCII = + - @ and their
full-width and other compatibility forms (NFKC folds ＝ to =), and the minus sign."""

from __future__ import annotations

import csv
import io

import pytest

from core.export import csv_bytes, csv_safe

ATTACKS = ["=1+1", "＝1+1", "＋1+1", "－1+1", "＠SUM(A1:A9)", "﹦1+1", "﹢1", "﹣1", "﹫A1", "⁼1",
           "₊1", "\u22121+1", "+1", "-1", "@A1"]  # fmt: skip
PLAIN = ["Ｈ100 offer", "1+1", "A=1", "— none", "１００G RoCE", "（注）"]


def _cells(body: bytes) -> list[str]:
    return next(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


@pytest.mark.parametrize("text", ATTACKS)
def test_a_cell_starting_like_a_formula_in_any_width_is_kept_as_text(text: str) -> None:
    assert _cells(csv_bytes([text], []))[0] == "'" + text
    assert csv_safe(text) == "'" + text


@pytest.mark.parametrize("text", PLAIN)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert _cells(csv_bytes([text], []))[0] == text

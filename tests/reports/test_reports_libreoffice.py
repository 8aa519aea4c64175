"""The XLSX export opens in LibreOffice Calc as a finance director's office suite would.

Calc (headless) loads the workbook and saves it again; a file Calc had to repair or could not read
would lose sheets or cells on the way, or make the conversion fail. Every sheet, every cell value
and the number formats of the money columns must come back unchanged, and Chinese text intact.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from openpyxl import load_workbook

from core.models import JobStatus
from reports.services import report_build_sync

pytestmark = pytest.mark.django_db
SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")


def _calc_round_trip(source: Path, out_dir: Path) -> tuple[Path, str]:
    profile = out_dir / "lo-profile"
    proc = subprocess.run(
        [
            SOFFICE, f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
            "--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", str(out_dir / "calc"),
            str(source),
        ],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    converted = out_dir / "calc" / source.name
    assert converted.exists(), f"Calc wrote nothing: {proc.stdout} {proc.stderr}"
    return converted, proc.stdout + proc.stderr


def _values(path: Path) -> dict[str, list[tuple]]:  # type: ignore[type-arg]
    wb = load_workbook(path)
    return {
        ws.title: [
            tuple(v for v in row)
            for row in ws.iter_rows(values_only=True)
            if any(v not in (None, "") for v in row)
        ]
        for ws in wb.worksheets
    }


def _same(a: object, b: object) -> bool:
    if isinstance(a, bool):  # Calc stores booleans as the formulas =TRUE() / =FALSE()
        return b == a or b == f"={str(a).upper()}()"
    if isinstance(a, int | float) and isinstance(b, int | float):
        return b == pytest.approx(a, rel=1e-9, abs=1e-9)
    return (a if a != "" else None) == (b if b != "" else None)


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice Calc is not installed (make sysdeps)")
def test_the_demo_workbook_opens_in_calc_without_repair(demo_run, team_a, analyst_a, tmp_path):
    report = report_build_sync(
        team=team_a, user=analyst_a, run=demo_run, kind="xlsx", language="zh-hans"
    )
    assert report.status == JobStatus.DONE, report.error
    source = tmp_path / "report.xlsx"
    source.write_bytes(Path(report.file.path).read_bytes())
    converted, output = _calc_round_trip(source, tmp_path)
    assert "repair" not in output.lower() and "error" not in output.lower(), output

    before, after = _values(source), _values(converted)
    assert list(after) == list(before)  # every sheet, in order
    for sheet, rows in before.items():
        assert len(after[sheet]) == len(rows), sheet
        for row_before, row_after in zip(rows, after[sheet], strict=True):
            width = max(len(row_before), len(row_after))
            pad_b = row_before + (None,) * (width - len(row_before))
            pad_a = row_after + (None,) * (width - len(row_after))
            assert all(_same(x, y) for x, y in zip(pad_b, pad_a, strict=True)), (
                sheet,
                row_before,
                row_after,
            )
    ranking = load_workbook(converted).worksheets[0]
    header = [c.value for c in ranking[1]]
    assert any(str(h).startswith("每有效训练小时成本") for h in header)  # "Cost per ETH"
    names = [ranking.cell(row=r, column=2).value for r in range(2, ranking.max_row + 1)]
    assert any("示例" in str(n) for n in names), names  # Chinese vendor names survive
    money = [c.number_format for c in ranking[2] if isinstance(c.value, float)]
    assert "#,##0.00" in money

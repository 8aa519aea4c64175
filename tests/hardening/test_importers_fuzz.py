"""Hostile files into every importer: the quotes CSV/XLSX import and the benchmark upload.

Whatever arrives, an importer answers with its own validation result (the quotes import: an
`ImportReport` with messages; the benchmark upload: Django's `ValidationError` or refusals),
never another exception; a rejected quotes import writes nothing (all-or-nothing mode); a stored
benchmark upload keeps its raw bytes. The log parsers have their own property tests in
tests/domain; this file feeds the layers around them.
"""

from __future__ import annotations

import io
import random
import zipfile

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl import Workbook

from benchmarks.models import BenchmarkLog
from benchmarks.services import benchmark_ingest
from benchmarks.services import test_run_create as make_test_run
from quotes.importing import quotes_import
from quotes.models import Quote, QuoteVersion
from quotes.testing import make_vendor

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

HEADER = [
    "vendor", "label", "gpu", "gpus_per_node", "nodes", "price_per_node_month", "nic_gbps",
    "fabric",
]  # fmt: skip
GOOD = ["Imp", "good one", "A100-SXM4-80GB", "8", "8", "40000", "100", "roce"]


@pytest.fixture
def importer(team_a, analyst_a):  # type: ignore[no-untyped-def]
    make_vendor(team_a, "Imp")

    def run(name: str, raw: bytes, valid_rows: bool = False):  # type: ignore[no-untyped-def]
        before = (Quote.objects.count(), QuoteVersion.objects.count())
        report = quotes_import(
            team=team_a, user=analyst_a, name=name, raw=raw, valid_rows=valid_rows
        )
        after = (Quote.objects.count(), QuoteVersion.objects.count())
        assert all(isinstance(e, str) and e.strip() for e in report.errors)
        if not report.ok and not valid_rows:
            assert not report.created and after == before, "a rejected import wrote rows"
        assert after[0] - before[0] == len(report.created)
        return report

    return run


def _csv(rows: list[list[str]], *, newline: str = "\n", bom: bool = False) -> bytes:
    text = newline.join(",".join(r) for r in rows)
    return (("\ufeff" if bom else "") + text).encode()


def _xlsx(rows: list[list[object]]) -> bytes:
    wb = Workbook()
    ws = wb.active
    for row in rows:
        ws.append(row)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


# ------------------------------------------------------------------------ quotes: arbitrary bytes


@FUZZ
@given(raw=st.binary(max_size=2000), suffix=st.sampled_from([".csv", ".xlsx", ".CSV"]))
def test_arbitrary_bytes_never_break_the_quotes_import(importer, raw, suffix):  # type: ignore[no-untyped-def]
    importer("upload" + suffix, raw)


@FUZZ
@given(text=st.text(max_size=400))
def test_arbitrary_text_as_csv_is_a_report_not_an_exception(importer, text):  # type: ignore[no-untyped-def]
    importer("q.csv", (",".join(HEADER) + "\n" + text).encode("utf-8", "surrogatepass"))


# ------------------------------------------------------------------------ quotes: mangled CSVs

HOSTILE_CELLS = [
    "100 Mbps", "100Gbit/s", "1e400", "-1e400", "nan", "inf", "-5", "0", "99999999999999999999999",
    "1" * 200, "１００", "٣", "\u202e100", "=1+1", "\x00", "", " ", "8.5", "八", "NULL", "0x10",
    "1,000", "<script>alert(1)</script>",
]  # fmt: skip


@FUZZ
@given(
    column=st.sampled_from(HEADER[3:]),
    value=st.sampled_from(HOSTILE_CELLS)
    | st.text(st.characters(blacklist_categories=("Cs",)), max_size=30),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    bom=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_a_mangled_cell_is_reported_by_row_and_field(importer, column, value, newline, bom, seed):  # type: ignore[no-untyped-def]
    order = list(range(len(HEADER)))
    random.Random(seed).shuffle(order)  # column order must not matter
    row = list(GOOD)
    row[HEADER.index(column)] = '"' + value.replace('"', '""') + '"'
    rows = [[HEADER[i] for i in order], [row[i] for i in order]]
    report = importer("q.csv", _csv(rows, newline=newline, bom=bom))
    if not report.ok:
        assert any(e.startswith("Row 2") or "column" in e.lower() for e in report.errors), (
            report.errors
        )


def test_a_bandwidth_in_mbps_in_the_gbps_column_is_refused_with_its_row(importer):  # type: ignore[no-untyped-def]
    row = list(GOOD)
    row[HEADER.index("nic_gbps")] = "100 Mbps"
    report = importer("q.csv", _csv([HEADER, GOOD, row]))
    assert not report.ok and not report.created
    assert any(e.startswith("Row 3, nic_gbps") for e in report.errors), report.errors


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\xef\xbb\xbf",
        b"\r\n\r\n",
        ",".join(HEADER).encode(),
        b"vendor;label;gpu\r\nImp;x;A100",
        "\ufeff".encode() + _csv([HEADER, GOOD], newline="\r\n"),
        _csv([HEADER, GOOD]).decode().encode("utf-16"),
        _csv([HEADER, GOOD]).decode().encode("gb18030") + "，中文".encode("gb18030"),
        _csv([HEADER, GOOD + ["extra", "cells"]]),
        _csv([HEADER, GOOD[:3]]),
        _csv([HEADER, GOOD]) + b"\n\x00\x00\x00",
        b'"unterminated' + _csv([HEADER, GOOD]),
    ],
    ids=[
        "empty",
        "bom-only",
        "blank-lines",
        "header-only",
        "semicolons",
        "bom-crlf",
        "utf16",
        "gb18030",
        "extra-cells",
        "short-row",
        "nul-bytes",
        "unterminated-quote",
    ],  # fmt: skip
)
def test_broken_csv_files_get_a_readable_answer(importer, raw):  # type: ignore[no-untyped-def]
    report = importer("q.csv", raw)
    assert report.ok or report.errors


def test_a_csv_with_shuffled_columns_bom_and_crlf_still_imports(importer):  # type: ignore[no-untyped-def]
    order = [7, 2, 0, 5, 1, 6, 3, 4]
    rows = [[HEADER[i] for i in order], [GOOD[i] for i in order]]
    report = importer("q.csv", _csv(rows, newline="\r\n", bom=True))
    assert report.ok and len(report.created) == 1


def test_too_many_rows_are_refused_before_any_row_is_checked(importer):  # type: ignore[no-untyped-def]
    import time

    started = time.monotonic()
    report = importer("q.csv", _csv([HEADER] + [GOOD] * 20_001))
    assert not report.ok and "rows" in report.errors[0]
    assert time.monotonic() - started < 5


# ------------------------------------------------------------------------ quotes: mangled XLSX


def _rezip(raw: bytes, *, extra: dict[str, bytes] | None = None, drop: str = "") -> bytes:
    src = zipfile.ZipFile(io.BytesIO(raw))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            if info.filename != drop:
                out.writestr(info.filename, src.read(info.filename))
        for name, data in (extra or {}).items():
            out.writestr(name, data)
    return buf.getvalue()


def _bomb_sheet(raw: bytes, inflated_mb: int = 300) -> bytes:
    """The first sheet's XML padded with whitespace: a few hundred kB that inflate to ~300 MB."""
    src = zipfile.ZipFile(io.BytesIO(raw))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                with out.open(info.filename, "w", force_zip64=True) as member:
                    member.write(data.replace(b"<sheetData>", b"<sheetData>", 1))
                    chunk = b" " * (1 << 20)
                    for _ in range(inflated_mb):
                        member.write(chunk)
                continue
            out.writestr(info.filename, data)
    return buf.getvalue()


def test_a_good_xlsx_imports(importer):  # type: ignore[no-untyped-def]
    report = importer("q.xlsx", _xlsx([HEADER, [*GOOD[:3], 8, 8, 40000, 100, "roce"]]))
    assert report.ok and len(report.created) == 1


@pytest.mark.parametrize("cut", [10, 100, 0.5, -1, -22])
def test_a_truncated_xlsx_is_refused(importer, cut):  # type: ignore[no-untyped-def]
    raw = _xlsx([HEADER, GOOD])
    end = int(len(raw) * cut) if isinstance(cut, float) else cut
    report = importer("q.xlsx", raw[:end])
    assert not report.ok and report.errors


def test_an_xlsx_with_extra_members_or_a_missing_sheet_is_answered(importer):  # type: ignore[no-untyped-def]
    raw = _xlsx([HEADER, GOOD])
    extra = _rezip(raw, extra={"../../evil.sh": b"rm -rf /", "xl/media/x.bin": b"\0" * 100})
    report = importer("q.xlsx", extra)  # junk members are ignored, the sheet still counts
    assert (report.ok and len(report.created) == 1) or report.errors
    missing = _rezip(raw, drop="xl/worksheets/sheet1.xml")
    report = importer("q.xlsx", missing)
    assert not report.ok and report.errors


def test_an_xlsx_zip_bomb_is_refused_without_inflating_it(importer):  # type: ignore[no-untyped-def]
    import time

    bomb = _bomb_sheet(_xlsx([HEADER, GOOD]))
    assert len(bomb) < 2_000_000
    started = time.monotonic()
    report = importer("q.xlsx", bomb)
    assert not report.ok and report.errors
    assert time.monotonic() - started < 5, "the bomb was inflated"


_FLIP_BASE: list[bytes] = []


def _flip_base() -> bytes:
    if not _FLIP_BASE:
        _FLIP_BASE.append(_xlsx([HEADER, [*GOOD[:3], 8, 8, 40000, 100, "roce"]]))
    return _FLIP_BASE[0]


@FUZZ
@given(data=st.data())
def test_random_byte_flips_in_an_xlsx_never_break_the_import(importer, data):  # type: ignore[no-untyped-def]
    # One workbook for every example: openpyxl stamps the current time into docProps, so a
    # workbook rebuilt per example can change length and make hypothesis's draws inconsistent.
    raw = bytearray(_flip_base())
    for _ in range(data.draw(st.integers(1, 8))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    importer("q.xlsx", bytes(raw))


@FUZZ
@given(
    cells=st.lists(
        st.one_of(
            st.none(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20),
            st.booleans(), st.dates(),
        ),
        min_size=len(HEADER), max_size=len(HEADER),
    )
)  # fmt: skip
def test_arbitrary_xlsx_cell_values_are_validated_not_crashed(importer, cells):  # type: ignore[no-untyped-def]
    cells = [c.replace("\x00", "") if isinstance(c, str) else c for c in cells]
    try:
        raw = _xlsx([HEADER, cells])
    except Exception:  # noqa: BLE001 - openpyxl itself refuses some values (control chars)
        return
    importer("q.xlsx", raw)


# ------------------------------------------------------------------------ benchmark uploads


@pytest.fixture
def ingest(team_a, analyst_a):  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "Bench")
    run = make_test_run(team=team_a, user=analyst_a, vendor=vendor, name="fuzz run")

    def upload(name: str, raw: bytes):  # type: ignore[no-untyped-def]
        before = BenchmarkLog.objects.count()
        try:
            outcome = benchmark_ingest(
                team=team_a, user=analyst_a, test_run=run, upload=SimpleUploadedFile(name, raw)
            )
        except ValidationError as exc:
            assert exc.messages and all(m.strip() for m in exc.messages)
            assert BenchmarkLog.objects.count() == before, "a refused upload left rows"
            return None
        for row in outcome.created:
            assert row.pk and row.file.name
            if row.archive_id is None:
                with row.file.open("rb") as fh:
                    assert fh.read() == raw, "the raw upload was not kept as sent"
        for refusal in outcome.refusals:
            assert refusal.get("en", "").strip() and refusal.get("zh", "").strip()
        return outcome

    return upload


@FUZZ
@given(raw=st.binary(min_size=1, max_size=3000), name=st.sampled_from(["a.log", "b.json", "c.zip"]))
def test_arbitrary_bytes_are_stored_raw_or_refused(ingest, raw, name):  # type: ignore[no-untyped-def]
    ingest(name, raw)


def _nameable(name: str) -> bool:
    """Django's upload layer drops a file part whose base name is empty, '.' or '..'."""
    import os

    return os.path.basename(name) not in ("", ".", "..")


@FUZZ
@given(name=st.text(min_size=0, max_size=300).filter(_nameable))
def test_hostile_file_names_are_stored_under_a_safe_name(ingest, name):  # type: ignore[no-untyped-def]
    outcome = ingest(name, b"iperf 3.9\n" + name.encode("utf-8", "surrogatepass"))
    if outcome is not None:
        for row in outcome.created + outcome.duplicates:
            assert ".." not in row.file.name.split("/") and not row.file.name.startswith("/")
            assert len(row.original_name) <= 255


def _zip(members: dict[str, bytes | None]) -> bytes:
    """A zip of `members`; a None member is a bomb: 250 MB of zeros that deflate to ~250 kB."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            if data is not None:
                zf.writestr(name, data)
                continue
            with zf.open(name, "w", force_zip64=True) as member:
                chunk = b"\0" * (1 << 20)
                for _ in range(250):
                    member.write(chunk)
    return buf.getvalue()


@pytest.mark.parametrize(
    "members",
    [
        {"../../etc/passwd": b"root:x:0:0"},
        {"/abs/path.log": b"x"},
        {"ok.log": b"x", "dir/../../up.log": b"y"},
        {"bomb.log": None},
        {f"m{i}.log": str(i).encode() for i in range(5000)},
    ],
    ids=["traversal", "absolute", "nested-traversal", "bomb", "too-many-members"],
)
def test_hostile_zips_are_refused_whole_and_the_archive_kept(ingest, members):  # type: ignore[no-untyped-def]
    raw = _zip(members)
    outcome = ingest("evidence.zip", raw)
    assert outcome is not None
    assert outcome.refusals and not [r for r in outcome.created if r.archive_id]
    archive = BenchmarkLog.objects.get(is_archive=True, original_name="evidence.zip")
    with archive.file.open("rb") as fh:
        assert fh.read() == raw


@pytest.mark.parametrize("cut", [30, 0.5, -10])
def test_a_truncated_zip_is_kept_raw_with_a_refusal_or_stored_as_a_log(ingest, cut):  # type: ignore[no-untyped-def]
    raw = _zip({"a.log": b"iperf3 output " * 200, "b.log": b"more " * 300})
    end = int(len(raw) * cut) if isinstance(cut, float) else cut
    outcome = ingest("cut.zip", raw[:end])
    assert outcome is not None and (outcome.created or outcome.refusals)

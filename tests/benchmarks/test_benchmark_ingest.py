"""Upload -> parse -> summary, hostile files, duplicates and idempotent tasks."""

import io
import zipfile

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks import tasks
from benchmarks.models import BenchmarkLog
from benchmarks.services import benchmark_ingest, benchmark_parse
from core.models import JobStatus
from domain.benchlogs import parse_path
from domain.benchlogs.measures import percentile
from domain.benchlogs.warmup import steady_intervals

from .conftest import corpus, upload

pytestmark = pytest.mark.django_db

P4 = "iperf3-json/local_3.12_tcp_P4.json"
SINGLE = "iperf3-json/local_3.12_tcp_single.json"
# Two tests one after another on one pair of network namespaces (recorded/SOURCES.md): the
# local logs above ran over 127.0.0.1, which is set aside as loopback.
RUN1 = "../recorded/sequential_pair0_run1.json"
RUN2 = "../recorded/sequential_pair0_run2.json"


def _ingest(run, user, f, capture):  # type: ignore[no-untyped-def]
    with capture(execute=True):
        return benchmark_ingest(team=run.team, user=user, test_run=run, upload=f)


def test_two_iperf3_tests_on_one_pair_parse_and_summarise_as_repeats(
    run_a, analyst_a, django_capture_on_commit_callbacks
):
    _ingest(run_a, analyst_a, upload(RUN1), django_capture_on_commit_callbacks)
    _ingest(run_a, analyst_a, upload(RUN2), django_capture_on_commit_callbacks)
    run_a.refresh_from_db()
    logs = {log.original_name: log for log in run_a.logs.all()}
    first = parse_path(corpus(RUN1)).throughput_gbps
    second = parse_path(corpus(RUN2)).throughput_gbps
    assert logs["sequential_pair0_run1.json"].throughput_gbps == pytest.approx(first, rel=1e-6)
    assert logs["sequential_pair0_run2.json"].throughput_gbps == pytest.approx(second, rel=1e-6)
    assert all(log.status == JobStatus.DONE for log in logs.values())
    # Both ran on one pair, one after the other (their own clocks): repeats of one pair, whose
    # typical figure is the median of the two, never their sum.
    assert run_a.status == JobStatus.DONE and run_a.pairs == 1
    assert run_a.aggregate_gbps == pytest.approx((first + second) / 2, rel=1e-6)
    assert run_a.min_pair_gbps == run_a.max_pair_gbps == run_a.aggregate_gbps
    assert run_a.jain_index is None
    assert "evidence.repeats" in {note["code"] for note in run_a.run_notes}
    assert run_a.effective_line_rate_gbps == 25.0  # one NIC port, not 8 × 25
    # Warm-up (a ramping first interval) is left out of the pool: the P5 is the steady
    # intervals' (domain.benchlogs.warmup decides, per log).
    steady = [v for rel in (RUN1, RUN2) for v in steady_intervals(parse_path(corpus(rel)))]
    assert run_a.tail_p5_gbps == pytest.approx(percentile(steady, 0.05), rel=1e-9)
    assert run_a.verdict in ("fail", "warn")  # 1.8 Gbit/s of 25 is far below 85 %
    assert logs["sequential_pair0_run1.json"].result["series"]


def test_the_sha256_is_stored_and_a_reupload_points_to_the_existing_log(
    run_a, analyst_a, django_capture_on_commit_callbacks
):
    first = _ingest(run_a, analyst_a, upload(P4), django_capture_on_commit_callbacks)
    again = _ingest(
        run_a, analyst_a, upload(P4, "renamed.json"), django_capture_on_commit_callbacks
    )
    assert again.created == [] and again.duplicates == first.created
    assert BenchmarkLog.objects.filter(team=run_a.team).count() == 1
    import hashlib

    assert first.created[0].sha256 == hashlib.sha256(corpus(P4).read_bytes()).hexdigest()


def test_running_the_parse_task_twice_gives_one_result(
    run_a, analyst_a, django_capture_on_commit_callbacks
):
    log = _ingest(run_a, analyst_a, upload(P4), django_capture_on_commit_callbacks).created[0]
    log.refresh_from_db()
    before = (log.result, log.throughput_gbps, log.finished_at)
    tasks.parse_benchmark_log.apply(args=[log.pk])
    assert benchmark_parse(log_id=log.pk, force=True) == JobStatus.DONE
    log.refresh_from_db()
    assert (log.result, log.throughput_gbps) == before[:2]
    assert BenchmarkLog.objects.filter(team=run_a.team).count() == 1


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty.json", b""),
        ("garbage.bin", bytes(range(256)) * 8),
        ("truncated.json", corpus(P4).read_bytes()[:700]),
        ("notes.txt", b"hello, this is not a benchmark log at all\n" * 3),
    ],
)
def test_bad_files_are_kept_and_failed_with_the_parsers_message(
    run_a, analyst_a, django_capture_on_commit_callbacks, name, content
):
    outcome = _ingest(
        run_a, analyst_a, SimpleUploadedFile(name, content), django_capture_on_commit_callbacks
    )
    log = outcome.created[0]
    log.refresh_from_db()
    assert log.status == JobStatus.FAILED
    assert log.error_en and log.error_zh
    assert log.file.open("rb").read() == content
    run_a.refresh_from_db()
    assert run_a.status == JobStatus.DONE


def test_an_oversized_upload_is_refused_before_anything_is_stored(run_a, analyst_a, settings):
    settings.UPLOAD_MAX_BYTES = 100
    with pytest.raises(ValidationError):
        benchmark_ingest(team=run_a.team, user=analyst_a, test_run=run_a, upload=upload(P4))
    assert not BenchmarkLog.objects.exists()


def _zip(entries) -> bytes:  # type: ignore[no-untyped-def]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if mode:
                info.external_attr = mode << 16
            zf.writestr(info, data)
    return buf.getvalue()


def test_a_zip_expands_its_members_named_by_their_path_inside_it(
    run_a, analyst_a, django_capture_on_commit_callbacks
):
    data = _zip(
        [
            ("pairs/p4.json", corpus(RUN1).read_bytes(), 0),
            ("pairs/single.json", corpus(RUN2).read_bytes(), 0),
            ("notes/", b"", 0),
        ]
    )
    outcome = _ingest(
        run_a, analyst_a, SimpleUploadedFile("logs.zip", data), django_capture_on_commit_callbacks
    )
    # Members keep their path inside the archive (the domain's name, also the one its refusal
    # messages quote), so pair1/run.json and pair2/run.json stay apart.
    assert sorted(log.original_name for log in outcome.created) == [
        "pairs/p4.json",
        "pairs/single.json",
    ]
    assert outcome.refusals == []
    archive = BenchmarkLog.objects.get(is_archive=True)
    assert archive.file.open("rb").read() == data  # the zip itself is kept
    assert archive.status == JobStatus.DONE and archive.archive_refusals == []
    for member in outcome.created:
        member.refresh_from_db()
        assert member.status == JobStatus.DONE and member.archive_id == archive.pk
    run_a.refresh_from_db()
    assert run_a.pairs == 1  # the two members ran one after the other on one pair
    assert run_a.logs.filter(status=JobStatus.DONE, is_archive=False).count() == 2


@pytest.mark.parametrize(
    ("hostile", "code"),
    [
        (("../../etc/evil.json", b"{}", 0), "archive_unsafe_path"),
        (("link.json", b"/etc/passwd", 0o120777), "archive_symlink"),
        (("bomb.txt", b"0" * 5_000_000, 0), "archive_ratio"),
    ],
)
def test_a_zip_with_a_traversal_path_a_link_or_a_bomb_is_refused_whole(
    run_a, analyst_a, django_capture_on_commit_callbacks, hostile, code
):
    # domain.benchlogs.archive refuses the whole archive when one member is hostile: nothing
    # from it is stored, the zip itself is kept as evidence with the reason.
    data = _zip([("pairs/p4.json", corpus(P4).read_bytes(), 0), hostile])
    outcome = _ingest(
        run_a, analyst_a, SimpleUploadedFile("logs.zip", data), django_capture_on_commit_callbacks
    )
    assert outcome.created == []
    assert [r["code"] for r in outcome.refusals] == [code]
    archive = BenchmarkLog.objects.get(is_archive=True)
    assert archive.file.open("rb").read() == data
    assert archive.status == JobStatus.FAILED and archive.error_code == code
    assert archive.error_zh and archive.archive_refusals[0]["zh"]
    assert hostile[0] in archive.error_en
    assert BenchmarkLog.objects.filter(is_archive=False).count() == 0

"""Defects found by checking the run and log pages in a browser (1440 and 390 px, English and
Chinese) with real uploaded logs: each test holds the rendered HTML to the fixed figures/labels.

- the pairs chart's bar labels said "1.0" for a 0.951 Gbit/s mean (one decimal), on the line
  rate it does not reach, beside tables that say 0.95;
- a bidirectional log's chart and interval table called the used direction the "total" (合计,
  0.95 Gbit/s) beside "both directions together: 1.9 Gbit/s", and named their lines with the
  parser's untranslated "forward" / "reverse" / "stream 5";
- the evidence tables' numeric heads sat left while their figures sat right, so 0.67 Gbit/s
  (sent) stood under "Received";
- the nccl curve's marker of the training model's message size had no label (plotly puts
  add_vline's annotation off a log axis);
- a sweep's "Latency percentiles" chart did not say it is the smallest message size's;
- the latency table printed 1.1 and 3 beside 1.03 and 3.18;
- a run without figures printed "— Gbit/s".
"""

from __future__ import annotations

import math
import re

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from benchmarks.models import BenchmarkLog
from domain.trainmodel.steptime import BUCKET_BYTES

from .conftest import CORPUS

pytestmark = pytest.mark.django_db

FIDELITY = CORPUS.parent / "fidelity"


def _upload(client, run, *paths):  # type: ignore[no-untyped-def]
    files = [SimpleUploadedFile(p.name, p.read_bytes()) for p in paths]
    resp = client.post(reverse("benchmarks:upload"), {"test_run": run.pk, "files": files})
    assert resp.status_code == 302, resp.content[:800]
    return {log.original_name: log for log in BenchmarkLog.objects.filter(test_run=run)}


def _get(client, url: str, lang: str) -> str:  # type: ignore[no-untyped-def]
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    page = client.get(url)
    assert page.status_code == 200
    return page.content.decode()


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture
def uploaded(client_as, analyst_a, run_a, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """Upload files to run A as its analyst, parsed on commit: (client, logs by name)."""

    def upload(*paths):  # type: ignore[no-untyped-def]
        client = client_as(analyst_a)
        with django_capture_on_commit_callbacks(execute=True):
            logs = _upload(client, run_a, *paths)
        return client, logs

    return upload


@pytest.fixture
def bidir(uploaded):  # type: ignore[no-untyped-def]
    return uploaded(FIDELITY / "tcp_bidir.json", FIDELITY / "tcp_bidir.txt")


def test_pair_bars_are_labelled_with_the_tables_places(bidir, run_a):  # type: ignore[no-untyped-def]
    client, _logs = bidir
    html = _get(client, reverse("benchmarks:run", args=[run_a.pk]), "en")
    bars = re.findall(r'"text":\[([^\]]*)\]', html)
    assert bars and set(bars) <= {'"0.95","0.94"', '"0.94","0.95"'}, bars
    assert "0.95 Gbit/s" in _text(html) and "0.94 Gbit/s" in _text(html)  # the tables agree


@pytest.mark.parametrize(
    ("lang", "used_line", "used_head", "other", "total"),
    [
        ("en", "server → client (used for the quote)",
         "server → client, used for the quote (Gbit/s)", "client → server", "total (Gbit/s)"),
        ("zh-hans", "服务端 → 客户端（用于报价）",
         "服务端 → 客户端，用于报价 (Gbit/s)", "客户端 → 服务端", "合计 (Gbit/s)"),
    ],
)  # fmt: skip
def test_a_bidirectional_log_names_its_directions_and_no_total(  # type: ignore[no-untyped-def]
    bidir, lang, used_line, used_head, other, total
):
    client, logs = bidir
    html = _get(client, reverse("benchmarks:log", args=[logs["tcp_bidir.json"].pk]), lang)
    names = re.findall(r'"name":"([^"]*)"', html)
    assert used_line in names and other in names, names
    assert not {"forward", "reverse", "total", "合计"} & set(names), names
    # Each stream runs one way under --bidir: its line would repeat a direction's.
    assert not [name for name in names if "stream" in name or "数据流" in name], names
    # The interval table's headline column is the direction used, not a "total".
    assert f"<th>{used_head}</th>" in html and total not in html
    stream = "数据流 5" if lang == "zh-hans" else "stream 5"
    assert f"<th>{stream}</th>" in html and "<th>forward</th>" not in html
    # The direction table keeps the sum, apart and without a share of line rate.
    assert "1.9 Gbit/s" in _text(html)


def test_a_run_with_one_bidirectional_log_draws_no_total_line(uploaded, run_a):  # type: ignore[no-untyped-def]
    client, _logs = uploaded(FIDELITY / "tcp_bidir.json")
    html = _get(client, reverse("benchmarks:run", args=[run_a.pk]), "en")
    names = re.findall(r'"name":"([^"]*)"', html)
    assert "server → client (used for the quote)" in names and "total" not in names


def test_evidence_number_heads_sit_over_their_numbers(uploaded, run_a):  # type: ignore[no-untyped-def]
    client, _logs = uploaded(FIDELITY / "tcp_bidir.json", FIDELITY / "udp_1500M.json")
    html = _get(client, reverse("benchmarks:run", args=[run_a.pk]), "en")
    for head in ("Mean (receiver)", "P5", "Share of line rate", "Sent by the client", "Received",
                 "Loss"):  # fmt: skip
        assert f'<th class="num">{head}</th>' in html, head
    assert '<td class="num">—</td><td class="num">—</td>' in html  # the sum's empty cells
    css = (settings.BASE_DIR / "static/benchmarks/evidence.css").read_text()
    assert ".evidence th { white-space:normal;" in css  # long heads wrap on a phone


def test_nccl_curve_labels_the_training_models_message_size(uploaded, run_a):  # type: ignore[no-untyped-def]
    client, _logs = uploaded(CORPUS / "nccl-tests/superbench_nccl_allreduce.log")
    for lang, label in (("en", "training model's message size (23.8 MiB)"),
                        ("zh-hans", "训练模型使用的消息大小（23.8 MiB）")):  # fmt: skip
        html = _get(client, reverse("benchmarks:run", args=[run_a.pk]), lang)
        found = re.search(r'"annotations":\[\{[^\]]*\}\]', html)
        assert found and label in found.group(0), found
        x = float(re.search(r'"x":([0-9.eE+-]+)', found.group(0)).group(1))  # type: ignore[union-attr]
        assert x == pytest.approx(math.log10(BUCKET_BYTES))  # on the log axis, in the chart
        assert "1,881 Gbit/s" in _text(html)


def test_latency_sweep_says_which_size_the_percentiles_are_and_keeps_two_places(uploaded, run_a):  # type: ignore[no-untyped-def]
    client, _logs = uploaded(CORPUS / "ib_write_lat/cx3_ib_a_percentiles.txt")
    html = _get(client, reverse("benchmarks:run", args=[run_a.pk]), "en")
    assert "message size 2 B, the smallest of the sweep" in html
    assert "Latency by message size" in html and '"type":"log"' in html
    # Its five statistics are listed under the chart, not beside it (390 px screens).
    assert '"legend":{"orientation":"h"' in html
    text = _text(html)
    # 32 B: average 1.10, 2 KiB: min 3.00 (perftest printed two places; was "1.1" and "3").
    assert "32 B 0.93 1.04 1.10 1.29 5.50" in text
    assert "2 KiB 3.00 3.18 3.21 3.38 8.29" in text
    assert "8 MiB 2,296.01 2,302.01 2,304.98 2,327.01 2,335.48" in text
    zh = _get(client, reverse("benchmarks:run", args=[run_a.pk]), "zh-hans")
    assert "消息大小 2 B，即扫描中最小的一档" in zh
    assert "the smallest of the sweep" not in zh


def test_a_run_without_figures_prints_a_dash_not_a_unit(uploaded, run_a):  # type: ignore[no-untyped-def]
    client, _logs = uploaded(CORPUS / "iperf3-text/local_3.12_error_refused.txt")
    text = _text(_get(client, reverse("benchmarks:run", args=[run_a.pk]), "en"))
    assert "— Gbit/s" not in text
    assert "Aggregate : —" in text and "Tail P5 of all intervals : —" in text
    assert "Connection refused" in text  # the tool's own error, quoted

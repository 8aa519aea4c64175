"""A kit a supplier cannot fake by typing, through the real upload paths (supplier page, API):

- a real corpus log the team already holds, uploaded again with the kit's token and date lines
  prepended, is never kit-verified (its body is held, and its parameters are not the token's);
- a public log not held, with a typed token, does not match its challenge (bilingual reason);
- the kit's own run (a corpus log doctored to the parameters its token derives) on a host of the
  bid's host list is kit-verified; on another host it is flagged;
- the scripts per host role carry the derived parameters, pass ``bash -n`` and record real
  host facts the portal reads back;
- an RFQ's named acceptance envelope judges the award's acceptance logs."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.models import BenchmarkLog
from benchmarks.services import benchmark_ingest
from benchmarks.services import test_run_create as run_create
from domain.evidence.tokens import expected_parameters
from domain.evidence.trust_facts import scan
from quotes.models import GpuModel
from quotes.testing import make_vendor
from sourcing.models import Answer
from sourcing.services import (
    answer_submit,
    answer_upload_evidence,
    award_acceptance_check,
    award_acceptance_upload,
    award_decide,
    award_propose,
)
from sourcing.tasks import close_due_rfqs
from sourcing.testing import answer_terms, demo_log, pass_deadline

pytestmark = pytest.mark.django_db
CORPUS = Path(__file__).resolve().parents[1] / "domain" / "data" / "corpus"
DGX = CORPUS / "ib_write_bw" / "dgx_spark_roce_q4_gbits.txt"
DGX_ROW = " 65536      20000            111.72             111.71             0.213070"
NDR = CORPUS / "ib_send_bw" / "cx7_ndr_session_send_bw_lat_read_write.txt"


def _token(client, rfq, test: str = "ib_write_bw") -> str:  # type: ignore[no-untyped-def]
    page = client.get(f"/sourcing/supplier/rfqs/{rfq.pk}/").content.decode()
    found = re.search(rf"GPK-{rfq.pk}-\d+-{test}-[0-9a-f]{{16}}", page)
    assert found, f"the supplier's kit shows no {test} token"
    return found.group(0)


def _framed(token: str, body: str, host: str = "") -> bytes:
    """The kit's framing, with the dates of now (inside the RFQ's window)."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    facts = f"{host}\n" if host else ""
    return f"GPK-TOKEN {token}\nGPK-DATE {now}\n{facts}{body}GPK-DATE {now}\n".encode()


def _kit_run(token: str, bw: str = "111.71") -> str:
    """The real RoCE ib_write_bw run as the kit's command prints it: the token's size and
    iterations in its row (-q 4 prints all four queue pairs' iterations), MsgRate to match."""
    p = expected_parameters(token)
    rate = float(bw) * 1e9 / (p.message_bytes * 8) / 1e6
    row = (
        f" {p.message_bytes}      {p.iterations * 4}            {float(bw) + 0.01:.2f}"
        f"             {bw}             {rate:.6f}"
    )
    return DGX.read_text().replace(DGX_ROW, row)


def _upload(client, answer, name: str, raw: bytes, capture):  # type: ignore[no-untyped-def]
    with capture(execute=True):
        response = client.post(
            f"/sourcing/supplier/answers/{answer.pk}/logs/",
            {"file": SimpleUploadedFile(name, raw)},
        )
    assert response.status_code == 302
    return BenchmarkLog.objects.get(original_name=name)


def test_a_held_corpus_log_uploaded_again_with_token_and_dates_is_never_kit_verified(  # type: ignore[no-untyped-def]
    rfq, suppliers, client_as, analyst_a, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    vendor = make_vendor(rfq.team, "Earlier vendor")
    run = run_create(team=rfq.team, user=analyst_a, vendor=vendor, name="earlier")
    with capture(execute=True):
        benchmark_ingest(
            team=rfq.team, user=analyst_a, test_run=run,
            upload=SimpleUploadedFile("public_dgx.txt", DGX.read_bytes()),
        )  # fmt: skip
    held = BenchmarkLog.objects.get(original_name="public_dgx.txt")
    answer = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    client = client_as(suppliers[0].user)
    token = _token(client, rfq)
    log = _upload(client, answer, "pair1_ib_write_bw.txt", _framed(token, DGX.read_text()), capture)
    assert log.trust_level == "supplied"
    assert log.checks["body_held_by"] == [held.pk]
    assert log.challenge["status"] == "refused"
    finding = log.challenge["findings"][0]
    assert finding["code"] == "challenge.parameters"
    assert "-s 65536 -n 20000" in finding["en"] and "测试包参数" in finding["zh"]
    codes = [r["code"] for r in log.admission["reasons"]]
    assert "admission.reused" in codes  # set aside as well: the team already holds this body
    en = client.get(f"/sourcing/supplier/rfqs/{rfq.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert "this token&#x27;s kit runs" in en.content.decode()
    zh = client.get(f"/sourcing/supplier/rfqs/{rfq.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "该令牌对应的测试包参数为" in zh.content.decode()


def test_a_public_log_with_a_typed_token_is_refused_by_its_parameters_through_the_api(  # type: ignore[no-untyped-def]
    rfq, suppliers, client_as, api_as, django_capture_on_commit_callbacks
):
    answer = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    token = _token(client_as(suppliers[0].user), rfq)
    sweep = (CORPUS / "ib_write_bw" / "cx3_ib_a_MBsec.txt").read_text()
    api = api_as(suppliers[0].user)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            f"/api/v1/supplier/answers/{answer.pk}/logs/",
            {"file": SimpleUploadedFile("pair1_ib_write_bw.txt", _framed(token, sweep))},
            format="multipart",
        )
    assert response.status_code == 202
    row = api.get(f"/api/v1/supplier/answers/{answer.pk}/").json()["logs"][0]
    assert row["trust_level"] == "supplied"
    assert row["challenge"]["findings"][0]["code"] == "challenge.parameters"
    assert row["challenge"]["findings"][0]["zh"]
    log = BenchmarkLog.objects.get(original_name="pair1_ib_write_bw.txt")
    assert log.checks["body_held_by"] == []  # not held: the parameters alone refuse it


def test_the_kits_own_run_on_a_listed_host_is_kit_verified_and_another_host_is_flagged(  # type: ignore[no-untyped-def]
    rfq, suppliers, client_as, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    client = client_as(suppliers[0].user)
    a100 = GpuModel.objects.get(key="A100-SXM4-80GB").pk
    form = answer_terms(gpu=a100, hosts="gpu-node-01 0c42:a103:00ab:cdef\ngpu-node-02\n")
    response = client.post(f"/sourcing/supplier/rfqs/{rfq.pk}/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    answer = Answer.objects.get(rfq=rfq, vendor=suppliers[0].vendor)
    assert answer.hosts == [
        {"name": "gpu-node-01", "ids": ["0c42a10300abcdef"]},
        {"name": "gpu-node-02", "ids": []},
    ]
    token = _token(client, rfq)
    listed = "GPK-HOST host=gpu-node-01 guid=0x0c42a10300abcdef mac=b8:ce:f6:01:02:03"
    ok = _upload(client, answer, "pair1_ib_write_bw.txt",
                 _framed(token, _kit_run(token), host=listed), capture)  # fmt: skip
    assert ok.challenge == {"status": "verified", "findings": []}
    assert ok.trust_level == "kit_verified"
    assert ok.provenance["host_facts"][0][0] == "gpu-node-01"
    other = "GPK-HOST host=rented-elsewhere guid=0x1111222233334444"
    raw = _framed(token, _kit_run(token, bw="109.90"), host=other)
    flagged = _upload(client, answer, "pair2_ib_write_bw.txt", raw, capture)
    assert flagged.trust_level == "supplied"
    assert flagged.challenge["findings"][0]["code"] == "challenge.other_hosts"
    page = client.get(f"/sourcing/supplier/rfqs/{rfq.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert "The log ran on hosts the bid does not name: rented-elsewhere." in page.content.decode()
    zh = client.get(f"/sourcing/supplier/rfqs/{rfq.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "日志运行在报价未列出的主机上：rented-elsewhere。" in zh.content.decode()


def test_the_host_list_through_the_api_and_its_bilingual_refusals(  # type: ignore[no-untyped-def]
    rfq, suppliers, api_as
):
    api = api_as(suppliers[0].user)
    url = f"/api/v1/supplier/rfqs/{rfq.pk}/answer/"
    bad = api.put(url, {"terms": answer_terms(), "hosts": ["node-1", "bad name!"]}, format="json",
                  HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    assert bad.status_code == 400
    assert "第 2 行" in str(bad.json())
    bad_en = api.put(url, {"terms": answer_terms(), "hosts": ["node-1 x"]}, format="json",
                     HTTP_ACCEPT_LANGUAGE="en")  # fmt: skip
    assert bad_en.status_code == 400 and "Line 1" in str(bad_en.json())
    assert not Answer.objects.filter(rfq=rfq).exists()
    ok = api.put(url, {"terms": answer_terms(), "hosts": ["node-1 GPU-5B2E0A1C-0000-1111"]},
                 format="json")  # fmt: skip
    assert ok.status_code == 200
    assert ok.json()["hosts"] == [{"name": "node-1", "ids": ["gpu-5b2e0a1c-0000-1111"]}]
    kept = api.put(url, {"terms": answer_terms(nodes=4)}, format="json")  # no hosts: kept
    assert kept.status_code == 200 and kept.json()["hosts"][0]["name"] == "node-1"


@pytest.mark.parametrize("role", ["server", "client", "nccl"])
def test_the_script_per_host_role_carries_the_derived_parameters_and_parses(  # type: ignore[no-untyped-def]
    rfq, suppliers, client_as, role, tmp_path
):
    answer = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    client = client_as(suppliers[0].user)
    response = client.get(f"/sourcing/supplier/rfqs/{rfq.pk}/kit/{role}.sh")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="{role}.sh"'
    script = response.content.decode()
    path = tmp_path / f"{role}.sh"
    path.write_text(script)
    checked = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    bw = expected_parameters(_token(client, rfq, "ib_write_bw"))
    iperf = expected_parameters(_token(client, rfq, "iperf3"), duration_s=rfq.kit_duration_s)
    if role == "client":
        assert f"-q 4 -s {bw.message_bytes} -n {bw.iterations} -p $(({bw.port} + I))" in script
        assert f"-p $(({iperf.port} + I)) -t {iperf.seconds} -l {iperf.blksize}" in script
        assert f'ANSWER="${{GPK_ANSWER:-{answer.pk}}}"' in script
        assert f"--title {_token(client, rfq, 'iperf3')}" in script
    elif role == "server":
        assert f"iperf3 -s -p $(({iperf.port} + I)) -1" in script
        assert f"-s {bw.message_bytes} -n {bw.iterations} -p $(({bw.port} + I))" in script
    else:
        page = client.get(f"/sourcing/supplier/rfqs/{rfq.pk}/").content.decode()
        assert "nccl" not in rfq.required_evidence and "-nccl-" not in page
        nccl = re.search(r"GPK-TOKEN (GPK-\S+-nccl-[0-9a-f]{16})", script)
        assert nccl
        p = expected_parameters(nccl.group(1))
        assert (
            f"all_reduce_perf -b {p.message_bytes} -e {p.max_bytes} -f 2 -g 1 -n {p.iterations}"
            in script
        )
    # The script's own host-facts function, run here, prints a line the portal reads back.
    facts = subprocess.run(
        ["bash", "-c", f'source <(sed -n "/^gpk_host_facts()/,/^}}/p" {path}); gpk_host_facts'],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert facts.returncode == 0, facts.stderr
    read = scan(facts.stdout).host_facts
    assert (
        read
        and read[0][0]
        == subprocess.run(["hostname"], capture_output=True, text=True).stdout.strip()
    )


def test_scripts_are_the_invited_suppliers_own(rfq, suppliers, client_as, analyst_a):  # type: ignore[no-untyped-def]
    first = client_as(suppliers[0].user).get(f"/sourcing/supplier/rfqs/{rfq.pk}/kit/client.sh")
    second = client_as(suppliers[1].user).get(f"/sourcing/supplier/rfqs/{rfq.pk}/kit/client.sh")
    assert first.content != second.content
    assert (
        client_as(suppliers[0].user)
        .get(f"/sourcing/supplier/rfqs/{rfq.pk}/kit/root.sh")
        .status_code
        == 404
    )
    team = client_as(analyst_a).get(f"/sourcing/supplier/rfqs/{rfq.pk}/kit/client.sh")
    assert team.status_code in (302, 403, 404)
    page = client_as(suppliers[0].user).get(f"/sourcing/supplier/rfqs/{rfq.pk}/").content.decode()
    assert f'href="/sourcing/supplier/rfqs/{rfq.pk}/kit/server.sh"' in page


@pytest.fixture
def ndr_award(
    make_rfq, vendors_a, invite, analyst_a, approver_a, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    rfq = make_rfq(title="8×H100 NDR", acceptance_envelope="azure-nd-h100-v5")
    account = invite(rfq, vendors_a[0], "ndr1")
    terms = answer_terms(gpu="H100-SXM", nic_gbps=400, nics_per_node=8, fabric="ib")
    answer = answer_submit(rfq=rfq, account=account, terms=terms)
    with django_capture_on_commit_callbacks(execute=True):
        answer_upload_evidence(
            answer=answer, account=account, upload=demo_log("ns_pair0_run1.json")
        )
    pass_deadline(rfq)
    with django_capture_on_commit_callbacks(execute=True):
        close_due_rfqs()
    rfq.refresh_from_db()
    answer.refresh_from_db()
    proposed = award_propose(rfq=rfq, user=analyst_a, answer=answer, min_pairs=1)
    return award_decide(award=proposed, user=approver_a, approve=True, comment="go")


@pytest.mark.parametrize(("path", "status"), [(DGX, "below"), (NDR, "within")])
def test_an_rfqs_named_envelope_judges_the_acceptance_logs(  # type: ignore[no-untyped-def]
    ndr_award, analyst_a, client_as, path, status, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        award_acceptance_upload(
            award=ndr_award, user=analyst_a, upload=SimpleUploadedFile(path.name, path.read_bytes())
        )
    award_acceptance_check(award_id=ndr_award.pk)
    ndr_award.refresh_from_db()
    evidence = ndr_award.acceptance_evidence
    assert evidence["criteria"]["envelope"] == "azure-nd-h100-v5"
    assert evidence["envelope"]["status"] == status
    below = [r for r in evidence["reasons"] if "envelope" in r]
    if status == "below":
        assert evidence["passed"] is False
        assert below and "Azure ND H100 v5 health check" in below[0]
    else:
        assert not below
    page = client_as(analyst_a).get(f"/sourcing/{ndr_award.rfq_id}/", HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()
    assert f'data-envelope="{status}"' in html and "Azure ND H100 v5 health check" in html

"""`make run` writes mail to files under var/mail/, and the RFQ page links the latest
invitation found there, so a newcomer reaches the supplier's side without a mail server."""

from __future__ import annotations

import pytest
from django.urls import reverse

from sourcing.demo_mail import FILE_BACKEND
from sourcing.services import invitation_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def mail_to_files(settings, tmp_path):  # type: ignore[no-untyped-def]
    settings.EMAIL_BACKEND = FILE_BACKEND
    settings.EMAIL_FILE_PATH = str(tmp_path / "mail")
    settings.SOURCING_MAIL_RETRY_DELAYS_S = (0, 0)
    return tmp_path / "mail"


def _invite(rfq, vendor, user, capture):  # type: ignore[no-untyped-def]
    with capture(execute=True):
        _inv, token = invitation_create(
            rfq=rfq, user=user, vendor=vendor, email=f"{vendor.pk}@example.com",
            base_url="http://testserver/",
        )  # fmt: skip
    return token


def test_the_rfq_page_links_the_latest_invitation_written_to_a_file(
    rfq, vendors_a, analyst_a, client_as, mail_to_files, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    _invite(rfq, vendors_a[0], analyst_a, django_capture_on_commit_callbacks)
    token = _invite(rfq, vendors_a[1], analyst_a, django_capture_on_commit_callbacks)
    assert list(mail_to_files.glob("*.log")), "the mail was written to a file"
    client = client_as(analyst_a)
    page = client.get(reverse("sourcing:detail", kwargs={"pk": rfq.pk})).content.decode()
    assert f"/sourcing/invite/{token}/" in page
    assert "var/mail/" in page
    # the link opens the supplier's invitation page
    assert client.get(f"/sourcing/invite/{token}/").status_code == 200


def test_another_rfqs_invitation_in_the_folder_is_not_linked(
    make_rfq,
    rfq,
    vendors_a,
    analyst_a,
    client_as,
    mail_to_files,
    django_capture_on_commit_callbacks,
):  # type: ignore[no-untyped-def]
    other = make_rfq(title="another RFQ")
    token = _invite(other, vendors_a[0], analyst_a, django_capture_on_commit_callbacks)
    page = client_as(analyst_a).get(reverse("sourcing:detail", kwargs={"pk": rfq.pk}))
    assert token not in page.content.decode()


def test_with_a_real_mail_backend_no_link_is_shown(
    rfq, vendors_a, analyst_a, client_as, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    token = _invite(rfq, vendors_a[0], analyst_a, django_capture_on_commit_callbacks)
    page = client_as(analyst_a).get(reverse("sourcing:detail", kwargs={"pk": rfq.pk}))
    assert token not in page.content.decode() and "var/mail/" not in page.content.decode()


def test_make_run_writes_mail_to_files():  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    code = (
        "from django.conf import settings; print(settings.EMAIL_BACKEND, settings.EMAIL_FILE_PATH)"
    )
    env = {"DJANGO_DEBUG": "true", "DJANGO_SETTINGS_MODULE": "portal.settings", "PATH": "/usr/bin"}
    out = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert out.startswith(FILE_BACKEND) and out.strip().endswith("var/mail")

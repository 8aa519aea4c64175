"""The glossary explains the words of the ranking pages and reports, linked from the run page."""

import pytest

pytestmark = pytest.mark.django_db


def test_the_glossary_explains_eth_mfu_overlap_and_p5(analyst_a, client_as):
    page = client_as(analyst_a).get("/rankings/glossary/", HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    text = page.content.decode()
    for anchor in ('id="eth"', 'id="mfu"', 'id="overlap"', 'id="p5"'):
        assert anchor in text
    assert (
        "effective training hour" in text and "typical is the figure the offer is priced at" in text
    )


def test_the_glossary_needs_a_login(client):  # type: ignore[no-untyped-def]
    assert client.get("/rankings/glossary/").status_code == 302

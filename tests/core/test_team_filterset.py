"""core.filters.TeamFilterSet builds its filters and form cheaply (shallow filter copies, one
form class per FilterSet class) without letting one team's rows reach another's form."""

from __future__ import annotations

import pytest

from quotes.filters import QuoteFilter, with_monthly_rent
from quotes.models import Quote
from quotes.selectors import quote_list
from quotes.testing import make_quote, make_vendor
from vendors.filters import VendorFilter
from vendors.models import Vendor

pytestmark = pytest.mark.django_db


def _vendor_options(filterset) -> set[str]:  # type: ignore[no-untyped-def]
    html = str(filterset.form["vendor"])
    return {v.name_zh for v in Vendor.objects.all() if v.name_zh in html}


def test_each_teams_form_offers_only_its_own_vendors_though_the_form_class_is_shared(
    team_a, team_b, analyst_a, analyst_b
):  # type: ignore[no-untyped-def]
    va = make_vendor(team_a, "A 家供应商")
    vb = make_vendor(team_b, "B 家供应商")
    fa = QuoteFilter(None, queryset=quote_list(team=team_a), team=team_a)
    fb = QuoteFilter(None, queryset=quote_list(team=team_b), team=team_b)
    assert type(fa.form) is type(fb.form)  # built once per FilterSet class
    assert _vendor_options(fa) == {va.name_zh}
    assert _vendor_options(fb) == {vb.name_zh}
    # the class's own field offers nothing: a form left unscoped would list no vendor
    assert list(type(fa.form).base_fields["vendor"].queryset) == []
    # another team's id is refused like a missing one; the team's own is accepted
    other = QuoteFilter({"vendor": str(vb.pk)}, queryset=quote_list(team=team_a), team=team_a)
    assert not other.is_valid() and "vendor" in other.errors
    own = QuoteFilter({"vendor": str(va.pk)}, queryset=quote_list(team=team_a), team=team_a)
    assert own.is_valid(), own.errors


def test_filters_are_the_instances_own_and_method_filters_call_their_own_filterset(
    team_a, analyst_a
):  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "Searchable Compute")
    make_quote(team_a, analyst_a, vendor, label="needle-quote")
    make_quote(team_a, analyst_a, vendor, label="hay-quote")
    qs = with_monthly_rent(Quote.objects.for_team(team_a))
    first = QuoteFilter({"search": "needle"}, queryset=qs, team=team_a)
    second = QuoteFilter({"search": "hay"}, queryset=qs, team=team_a)
    for fs in (first, second):
        for name, flt in fs.filters.items():
            assert flt.parent is fs
            assert flt is not QuoteFilter.base_filters[name]
        search = fs.filters["search"]
        assert search.filter.f is search  # the FilterMethod of this copy, not the declared one
        assert search.extra is not QuoteFilter.base_filters["search"].extra
    assert [q.label for q in first.qs] == ["needle-quote"]
    assert [q.label for q in second.qs] == ["hay-quote"]
    # the declared filters were never given a parent or a team's queryset
    assert not hasattr(QuoteFilter.base_filters["search"], "parent")
    assert QuoteFilter.base_filters["vendor"].queryset.query.where.children == []


def test_vendor_filter_form_keeps_its_labels_choices_and_fast_widgets(team_a):  # type: ignore[no-untyped-def]
    vendors = Vendor.objects.for_team(team_a)
    fs = VendorFilter({"findings": "critical"}, queryset=vendors, team=team_a)
    assert fs.is_valid()
    html = str(fs.form["findings"])
    assert '<option value="critical" selected>' in html
    assert fs.form.fields["q"].label == "Search"
    assert fs.form.fields["findings"].widget.__class__.__name__ == "FastSelect"


def test_both_lists_share_the_filter_bar_and_word_descending_in_each_requests_language(
    team_a,
):  # type: ignore[no-untyped-def]
    from django.utils import translation

    quotes = QuoteFilter(None, queryset=quote_list(team=team_a), team=team_a)
    vendors = VendorFilter(None, queryset=Vendor.objects.for_team(team_a), team=team_a)
    # one filter bar rule (core.filters.TeamFilterSet): no alias, no sort field
    assert [f.name for f in quotes.shown_fields()] == [
        "search", "vendor", "gpu", "fabric", "min_nic_gbps", "evidence", "current", "per_page",
    ]  # fmt: skip
    assert [f.name for f in vendors.shown_fields()] == ["q", "province", "fabric", "findings"]
    for filterset in (quotes, vendors):
        for lang, word in (("en", "descending"), ("zh-hans", "降序")):
            with translation.override(lang):
                labels = [str(label) for value, label in filterset.form.fields["sort"].choices]
            assert any(word in label for label in labels), (lang, labels)


def test_the_vendor_select_lists_the_teams_vendors_by_name_in_one_query(
    team_a, django_assert_num_queries
):  # type: ignore[no-untyped-def]
    for name in ("乙", "甲", "丙"):
        Vendor.objects.create(team=team_a, name_zh=name)
    Vendor.objects.create(team=team_a, name_zh="", name_en="Only English")
    filterset = QuoteFilter(None, queryset=quote_list(team=team_a), team=team_a)
    with django_assert_num_queries(1):
        html = str(filterset.form["vendor"])
    names = [v.name_zh or v.name_en for v in Vendor.objects.order_by("name_zh", "name_en", "pk")]
    positions = [html.index(f">{n}</option>") for n in names]
    assert positions == sorted(positions) and html.count("<option") == 5  # and the empty one

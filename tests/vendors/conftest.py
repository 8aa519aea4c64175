import pytest

from vendors.models import (
    Certification,
    DataCentre,
    IcpFiling,
    Licence,
    NetworkProfile,
    SlaTerms,
    Vendor,
)


@pytest.fixture
def vendor_a(team_a):  # type: ignore[no-untyped-def]
    v = Vendor.objects.create(team=team_a, name_zh="甲方厂商", name_en="Vendor of A")
    Licence.objects.create(
        vendor=v, number="粤B1-20190001", business_codes=["B11"], issuer_province="GD"
    )
    IcpFiling.objects.create(vendor=v, number="粤ICP备12345678号")
    Certification.objects.create(vendor=v, kind="iso27001", number="X-1")
    dc = DataCentre.objects.create(
        vendor=v, name="广州机房", province="GD", ownership="self_operated"
    )
    NetworkProfile.objects.create(data_centre=dc, fabric="roce", pfc=True, ecn=True)
    SlaTerms.objects.create(vendor=v, availability="0.999")
    return v


@pytest.fixture
def vendor_b(team_b):  # type: ignore[no-untyped-def]
    v = Vendor.objects.create(team=team_b, name_zh="乙方秘密厂商", name_en="Secret vendor of B")
    Licence.objects.create(
        vendor=v, number="粤B1-20190002", business_codes=["B11"], issuer_province="GD"
    )
    DataCentre.objects.create(vendor=v, name="深圳机房", province="GD")
    return v

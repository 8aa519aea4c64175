"""/api/v1/vendors/ with nested licences, ICP filings, certifications, data centres, SLA."""

from rest_framework_nested import routers

from core.api import api_catch_all

from . import views

router = routers.DefaultRouter()
router.register("vendors", views.VendorViewSet, basename="vendor")

nested = routers.NestedDefaultRouter(router, "vendors", lookup="vendor")
nested.register("licences", views.LicenceViewSet, basename="vendor-licence")
nested.register("icp-filings", views.IcpFilingViewSet, basename="vendor-icp")
nested.register("certifications", views.CertificationViewSet, basename="vendor-certification")
nested.register("data-centres", views.DataCentreViewSet, basename="vendor-datacentre")
nested.register("sla", views.SlaTermsViewSet, basename="vendor-sla")

dc_nested = routers.NestedDefaultRouter(nested, "data-centres", lookup="datacentre")
dc_nested.register("network", views.NetworkProfileViewSet, basename="datacentre-network")

urlpatterns = router.urls + nested.urls + dc_nested.urls + api_catch_all("vendors")

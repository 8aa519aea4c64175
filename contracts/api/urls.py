"""API routes of the contracts app, mounted under /api/v1/ by portal.urls."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from core.api import api_catch_all

from .views import ContractViewSet, KitUploadView, VendorTrackRecordViewSet

router = DefaultRouter()
router.register("contracts/vendor-records", VendorTrackRecordViewSet, basename="vendor-record")
router.register("contracts", ContractViewSet, basename="contract")
urlpatterns = [
    path("contracts/kit/uploads/", KitUploadView.as_view(), name="contract-kit-upload"),
    *router.urls,
    *api_catch_all("contracts"),
]

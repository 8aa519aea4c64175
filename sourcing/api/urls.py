"""API routes of the sourcing app, mounted under /api/v1/ by portal.urls."""

from rest_framework.routers import DefaultRouter

from core.api import api_catch_all

from .views import (
    AwardViewSet,
    InvitationAcceptViewSet,
    RfqViewSet,
    SupplierAnswerViewSet,
    SupplierRfqViewSet,
)

router = DefaultRouter()
router.register("rfqs", RfqViewSet, basename="rfq")
router.register("awards", AwardViewSet, basename="award")
router.register("supplier/rfqs", SupplierRfqViewSet, basename="supplier-rfq")
router.register("supplier/answers", SupplierAnswerViewSet, basename="supplier-answer")
router.register(
    "supplier/invitations/accept", InvitationAcceptViewSet, basename="invitation-accept"
)
urlpatterns = router.urls + api_catch_all("rfqs", "awards", "supplier")

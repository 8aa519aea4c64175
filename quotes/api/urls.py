"""API routes of the quotes app, mounted under /api/v1/ by portal.urls."""

from rest_framework.routers import DefaultRouter

from core.api import api_catch_all

from .views import GpuModelViewSet, QuoteViewSet, WorkloadProfileViewSet

router = DefaultRouter()
router.register("quotes", QuoteViewSet, basename="quote")
router.register("workloads", WorkloadProfileViewSet, basename="workload")
router.register("gpus", GpuModelViewSet, basename="gpu")
urlpatterns = router.urls + api_catch_all("quotes", "workloads", "gpus")

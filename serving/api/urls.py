"""API routes of the serving app, mounted under /api/v1/ by portal.urls."""

from rest_framework.routers import DefaultRouter

from core.api import api_catch_all

from .views import MixedPlanViewSet, ServingWorkloadViewSet

router = DefaultRouter()
router.register("serving-workloads", ServingWorkloadViewSet, basename="serving-workload")
router.register("mixed-plans", MixedPlanViewSet, basename="mixed-plan")
urlpatterns = router.urls + api_catch_all("serving-workloads", "mixed-plans")

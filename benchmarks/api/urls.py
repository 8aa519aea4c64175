"""API routes of the benchmarks app, mounted under /api/v1/ by portal.urls."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from core.api import api_catch_all

from .views import BenchmarkLogViewSet, TestRunViewSet, ThresholdsView

router = DefaultRouter()
router.register("benchmarks", BenchmarkLogViewSet, basename="benchmark")
router.register("test-runs", TestRunViewSet, basename="test-run")
urlpatterns = [
    path("benchmark-thresholds/", ThresholdsView.as_view(), name="benchmark-thresholds"),
    *router.urls,
    *api_catch_all("benchmarks", "test-runs"),
]

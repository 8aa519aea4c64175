"""API routes of the rankings app, mounted under /api/v1/ by portal.urls."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from core.api import api_catch_all

from .policy import RiskPolicyView
from .views import RankingRunViewSet

router = DefaultRouter()
router.register("rankings", RankingRunViewSet, basename="ranking")
urlpatterns = [
    path("risk-policy/", RiskPolicyView.as_view(), name="risk-policy"),
    *router.urls,
] + api_catch_all("rankings", keep=r"\d+/report\.")

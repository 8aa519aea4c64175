"""API routes of the rankings app, mounted under /api/v1/ by portal.urls."""

from rest_framework.routers import DefaultRouter

from core.api import api_catch_all

from .views import RankingRunViewSet

router = DefaultRouter()
router.register("rankings", RankingRunViewSet, basename="ranking")
urlpatterns = router.urls + api_catch_all("rankings", keep=r"\d+/report\.")

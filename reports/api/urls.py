"""API routes of the reports app, mounted under /api/v1/ by portal.urls."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from core.api import api_catch_all

from .views import RankingReportFileView, ReportViewSet

router = DefaultRouter()
router.register("reports", ReportViewSet, basename="report")
urlpatterns = [
    path("rankings/<int:pk>/report.pdf", RankingReportFileView.as_view(kind="pdf"),
         name="ranking-report-pdf"),
    path("rankings/<int:pk>/report.xlsx", RankingReportFileView.as_view(kind="xlsx"),
         name="ranking-report-xlsx"),
    path("rankings/<int:pk>/report.csv", RankingReportFileView.as_view(kind="csv"),
         name="ranking-report-csv"),
    *router.urls,
    *api_catch_all("reports"),
]  # fmt: skip

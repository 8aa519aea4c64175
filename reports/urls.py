from django.urls import path, re_path

from . import views

app_name = "reports"
urlpatterns = [
    path("", views.ReportListView.as_view(), name="list"),
    path("dashboard/", views.DecisionDashboardView.as_view(), name="dashboard"),
    path("ranking/<int:pk>/", views.RankingExportsView.as_view(), name="ranking"),
    re_path(r"^ranking/(?P<pk>[0-9]+)/report\.(?P<kind>pdf|xlsx|csv)$",
            views.RankingReportPageView.as_view(), name="ranking-file"),
    path("<int:pk>/status/", views.ReportStatusView.as_view(), name="status"),
    path("<int:pk>/download/", views.ReportDownloadView.as_view(), name="download"),
]  # fmt: skip

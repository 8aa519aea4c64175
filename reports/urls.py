from django.urls import path

from . import views

app_name = "reports"
urlpatterns = [
    path("", views.ReportListView.as_view(), name="list"),
    path("dashboard/", views.DecisionDashboardView.as_view(), name="dashboard"),
    path("ranking/<int:pk>/", views.RankingExportsView.as_view(), name="ranking"),
    path("<int:pk>/status/", views.ReportStatusView.as_view(), name="status"),
    path("<int:pk>/download/", views.ReportDownloadView.as_view(), name="download"),
]

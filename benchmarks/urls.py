from django.urls import path

from . import views

app_name = "benchmarks"
urlpatterns = [
    path("", views.TestRunListView.as_view(), name="list"),
    path("upload/", views.UploadView.as_view(), name="upload"),
    path("thresholds/", views.ThresholdsView.as_view(), name="thresholds"),
    path("runs/<int:pk>/", views.TestRunDetailView.as_view(), name="run"),
    path("runs/<int:pk>/together/", views.TestRunTogetherView.as_view(), name="run_together"),
    path("runs/<int:pk>/status/", views.TestRunStatusView.as_view(), name="run_status"),
    path("logs/<int:pk>/", views.LogDetailView.as_view(), name="log"),
    path("logs/<int:pk>/raw/", views.LogDownloadView.as_view(), name="download"),
]

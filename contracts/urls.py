from django.urls import path

from . import views

app_name = "contracts"
urlpatterns = [
    path("", views.ContractListView.as_view(), name="list"),
    path("new/", views.ContractFormView.as_view(), name="create"),
    path("from-quote/<int:quote_pk>/", views.ContractFromQuoteView.as_view(), name="from-quote"),
    path("from-award/<int:award_pk>/", views.ContractFromAwardView.as_view(), name="from-award"),
    path("<int:pk>/", views.ContractDetailView.as_view(), name="detail"),
    path("<int:pk>/edit/", views.ContractFormView.as_view(), name="edit"),
    path("<int:pk>/incidents/", views.IncidentCreateView.as_view(), name="incident-create"),
    path("<int:pk>/uploads/", views.UploadCreateView.as_view(), name="upload-create"),
    path("<int:pk>/prometheus/", views.PrometheusSourceView.as_view(), name="prometheus-set"),
    path("<int:pk>/maintenance/", views.MaintenanceCreateView.as_view(), name="maintenance-create"),
    path(
        "<int:pk>/maintenance/<int:window_pk>/delete/",
        views.MaintenanceDeleteView.as_view(),
        name="maintenance-delete",
    ),
    path("<int:pk>/evaluate/", views.EvaluateView.as_view(), name="evaluate"),
    path("<int:pk>/kit/<str:host>.sh", views.KitView.as_view(), name="kit"),
    path("<int:pk>/kit/renew/", views.KitTokenRenewView.as_view(), name="kit-token-renew"),
    path("<int:pk>/claims/", views.ClaimPackCreateView.as_view(), name="claim-create"),
    path(
        "<int:pk>/claims/<int:pack_pk>/<str:part>/",
        views.ClaimPackFileView.as_view(),
        name="claim-file",
    ),
]

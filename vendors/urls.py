from django.urls import path

from . import views

app_name = "vendors"
urlpatterns = [
    path("", views.VendorListView.as_view(), name="list"),
    path("new/", views.VendorEditView.as_view(), name="create"),
    path("<int:pk>/", views.VendorDetailView.as_view(), name="detail"),
    path("<int:pk>/edit/", views.VendorEditView.as_view(), name="edit"),
    path("<int:vendor_pk>/<slug:kind>/new/", views.VendorChildView.as_view(), name="child_create"),
    path(
        "<int:vendor_pk>/<slug:kind>/<int:pk>/", views.VendorChildView.as_view(), name="child_edit"
    ),
    path("<int:vendor_pk>/sla/", views.VendorChildView.as_view(), {"kind": "sla"}, name="sla"),
    path("datacentre/<int:dc_pk>/network/", views.NetworkProfileView.as_view(), name="network"),
    path(
        "<int:vendor_pk>/<slug:kind>/<int:pk>/evidence/",
        views.EvidenceDownloadView.as_view(),
        name="evidence",
    ),
]

from django.urls import path

from . import supplier_views as sv
from . import views as v

app_name = "sourcing"
urlpatterns = [
    path("", v.RfqListView.as_view(), name="list"),
    path("new/", v.RfqCreateView.as_view(), name="create"),
    path("<int:pk>/", v.RfqDetailView.as_view(), name="detail"),
    path("<int:pk>/edit/", v.RfqEditView.as_view(), name="edit"),
    path("<int:pk>/<slug:op>/", v.RfqActionView.as_view(), name="action"),
    path("awards/<int:pk>/<slug:op>/", v.AwardActionView.as_view(), name="award-action"),
    path("supplier/", sv.SupplierHomeView.as_view(), name="supplier-home"),
    path("supplier/rfqs/<int:pk>/", sv.SupplierRfqView.as_view(), name="supplier-rfq"),
    path(
        "supplier/rfqs/<int:pk>/kit/<slug:role>.sh",
        sv.SupplierKitScriptView.as_view(),
        name="supplier-kit-script",
    ),
    path(
        "supplier/answers/<int:pk>/logs/", sv.SupplierUploadView.as_view(), name="supplier-upload"
    ),
    path("invite/<str:token>/", sv.InvitationAcceptView.as_view(), name="invite"),
]

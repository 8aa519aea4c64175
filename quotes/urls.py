from django.urls import path, re_path

from . import views

# The compare page (`quotes:compare`, compare/) runs the ranking: it is
# rankings.views.QuoteCompareView, added to this namespace by portal/urls.py (quotes is below
# rankings and does not import it).
app_name = "quotes"
urlpatterns = [
    path("", views.QuoteListView.as_view(), name="list"),
    path("new/", views.QuoteEditView.as_view(), name="create"),
    path("<int:pk>/", views.QuoteDetailView.as_view(), name="detail"),
    path("<int:pk>/edit/", views.QuoteEditView.as_view(), name="edit"),
    path("import/", views.QuoteImportView.as_view(), name="import"),
    re_path(
        r"^import/template\.(?P<fmt>csv|xlsx)$",
        views.QuoteImportTemplateView.as_view(),
        name="import_template",
    ),
    path("workloads/", views.WorkloadListView.as_view(), name="workloads"),
    path("workloads/new/", views.WorkloadCreateView.as_view(), name="workload_create"),
    path("workloads/<int:pk>/edit/", views.WorkloadEditView.as_view(), name="workload_edit"),
]

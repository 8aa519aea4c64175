from django.urls import path

from . import views

app_name = "serving"
urlpatterns = [
    path("", views.ServingHomeView.as_view(), name="home"),
    path("workloads/new/", views.WorkloadFormView.as_view(), name="workload_create"),
    path("workloads/<int:pk>/", views.WorkloadDetailView.as_view(), name="workload"),
    path("workloads/<int:pk>/edit/", views.WorkloadFormView.as_view(), name="workload_edit"),
    path(
        "workloads/<int:pk>/traffic/", views.WorkloadTrafficView.as_view(), name="workload_traffic"
    ),
    path("plans/<int:pk>/traffic/", views.PlanTrafficView.as_view(), name="plan_traffic"),
    path("plans/new/", views.PlanFormView.as_view(), name="plan_create"),
    path("plans/<int:pk>/", views.PlanDetailView.as_view(), name="plan"),
    path("plans/<int:pk>/edit/", views.PlanFormView.as_view(), name="plan_edit"),
]

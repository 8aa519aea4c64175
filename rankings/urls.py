from django.urls import path

from . import views

app_name = "rankings"
urlpatterns = [
    path("", views.RankingListView.as_view(), name="list"),
    path("new/", views.RankingStartView.as_view(), name="start"),
    path("risk-policy/", views.RiskPolicyView.as_view(), name="policy"),
    path("risk-policy/history/", views.RiskPolicyHistoryView.as_view(), name="policy_history"),
    path("glossary/", views.GlossaryView.as_view(), name="glossary"),
    path("<int:pk>/", views.RankingDetailView.as_view(), name="detail"),
    path("<int:pk>/status/", views.RankingStatusView.as_view(), name="status"),
    path("<int:pk>/recompute/", views.RankingRecomputeView.as_view(), name="recompute"),
    path("<int:pk>/rerank/", views.RankingRerankView.as_view(), name="rerank"),
    path("<int:pk>/what-if/", views.RankingWhatIfView.as_view(), name="whatif"),
    path("<int:pk>/what-if/save/", views.RankingScenarioSaveView.as_view(), name="whatif_save"),
]

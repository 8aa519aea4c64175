from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.urls import include, path, re_path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.permissions import IsAuthenticated

from accounts.views import RateLimitedLoginView, TeamSettingsView, TrivialPageView
from core import views as core_views
from quotes import urls as quotes_urls
from rankings.views import QuoteCompareView
from reports.views import DecisionDashboardView, ListExportView

api_v1 = [
    path("", include("vendors.api.urls")),
    path("", include("quotes.api.urls")),
    path("", include("benchmarks.api.urls")),
    path("", include("rankings.api.urls")),
    path("", include("reports.api.urls")),
    path("", include("sourcing.api.urls")),
    path("", include("serving.api.urls")),
    path("", include("contracts.api.urls")),
    # Schema and docs for signed-in users only (README, Design): clients log in or send a token;
    # a browser without a session is sent to the login page.
    path(
        "schema/", SpectacularAPIView.as_view(permission_classes=[IsAuthenticated]), name="schema"
    ),
    path(
        "docs/",
        login_required(
            # its set-up script is served as a file (no inline script: Content-Security-Policy)
            SpectacularSwaggerSplitView.as_view(
                url_name="schema", permission_classes=[IsAuthenticated]
            )
        ),
        name="swagger-ui",
    ),
]

# The quotes namespace: the quotes app's pages and its compare page, which runs the ranking and so
# lives in rankings (above quotes).
quotes_pages = [
    *quotes_urls.urlpatterns,
    path("compare/", QuoteCompareView.as_view(), name="compare"),
]

urlpatterns = [
    path("", DecisionDashboardView.as_view(), name="dashboard"),
    path("health/", core_views.health, name="health"),
    path("ping/", core_views.ping_page, name="ping"),
    path("ping/page/", TrivialPageView.as_view(), name="ping-page"),
    path("login/", RateLimitedLoginView.as_view(), name="login"),
    path("team/settings/", TeamSettingsView.as_view(), name="team-settings"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    # list downloads are jobs of the reports app (reports.lists), under their lists' paths
    re_path(
        r"^vendors/export\.(?P<fmt>csv|xlsx)$",
        ListExportView.as_view(source="vendors"),
        name="vendors-export",
    ),
    re_path(
        r"^quotes/export\.(?P<fmt>csv|xlsx)$",
        ListExportView.as_view(source="quotes"),
        name="quotes-export",
    ),
    path("vendors/", include("vendors.urls")),
    path("quotes/", include((quotes_pages, quotes_urls.app_name))),
    path("benchmarks/", include("benchmarks.urls")),
    path("rankings/", include("rankings.urls")),
    path("reports/", include("reports.urls")),
    path("sourcing/", include("sourcing.urls")),
    path("serving/", include("serving.urls")),
    path("contracts/", include("contracts.urls")),
    path("api/v1/", include(api_v1)),
    path("admin/", admin.site.urls),
]

# A 500 under /api/ that no DRF view caught (a middleware, a plain view) is JSON too.
handler500 = "core.views.server_error"

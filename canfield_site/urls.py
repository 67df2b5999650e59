from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from core.accounts.language import set_language
from core.admin_login import admin_login
from core.views import HealthView, ReadyView

urlpatterns = [
    path("api/health/", HealthView.as_view(), name="health"),
    path("api/health/ready/", ReadyView.as_view(), name="health-ready"),
    path("api/auth/", include("core.accounts.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # (split: its script is served at ?script, not inline, for the Content-Security-Policy)
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="schema", template_name="frontend/api_docs.html"
        ),
        name="docs",
    ),
    path("api/", include("games.api.urls")),
    path("api/", include("leaderboard.urls")),
    path("api/", include("groups.api.urls")),
    path("api/", include("social.urls")),
    path("api/", include("ratings.urls")),
    path("api/", include("leagues.urls")),
    # The language menu's form, and the JavaScript catalog of the request's language (gettext,
    # ngettext, interpolate for the pages' modules).
    path("i18n/setlang/", set_language, name="set_language"),
    path("jsi18n/", JavaScriptCatalog.as_view(packages=["frontend"]), name="javascript-catalog"),
    path("", include("frontend.urls")),
]

# The admin, when enabled (ADMIN_ENABLED), its log-in page rate-limited as the API's.
if settings.ADMIN_ENABLED:
    urlpatterns[:0] = [
        path("admin/login/", admin_login, name="admin-login"),
        path("admin/", admin.site.urls),
    ]

# JSON errors under /api/, Django's pages elsewhere (core.api_errors).
handler400 = "core.api_errors.handler400"
handler403 = "core.api_errors.handler403"
handler404 = "core.api_errors.handler404"
handler500 = "core.api_errors.handler500"

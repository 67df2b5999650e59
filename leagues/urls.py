"""The leagues endpoints, included by canfield_site.urls under /api/."""

from django.urls import URLPattern, path  # noqa: F401

app_name = "leagues"

urlpatterns: list[URLPattern] = []

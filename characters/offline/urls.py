"""The web app manifest and the service worker, at the site's root: /manifest.webmanifest,
/sw.js."""

from django.urls import path

from . import views

urlpatterns = [
    path("manifest.webmanifest", views.manifest, name="web_manifest"),
    path("sw.js", views.service_worker, name="service_worker"),
]

"""The app's URLs: each feature folder serves its own (see its urls.py). URL names are the
contract templates and tests use; they stay when code moves."""

from django.urls import include, path

urlpatterns = [
    path("", include("characters.home.urls")),
    path("", include("characters.builder.urls")),
    path("", include("characters.sheets.urls")),
    path("", include("characters.play.urls")),
    path("", include("characters.history.urls")),
    path("", include("characters.review.urls")),
    path("", include("characters.campaigns.urls")),
    path("", include("characters.offline.urls")),
    path("", include("characters.encounters.urls")),
]

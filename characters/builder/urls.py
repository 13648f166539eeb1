"""Creating, importing, building, copying and deleting characters: /characters/…"""

from django.urls import path

from . import views

urlpatterns = [
    path("characters/", views.character_list, name="character_list"),
    path("characters/new/", views.character_new, name="character_new"),
    path("characters/import/", views.character_import, name="character_import"),
    path("characters/import/stat-block/", views.character_paste, name="character_paste"),
    path("characters/<id:pk>/edit/", views.character_edit, name="character_edit"),
    path("characters/names/explained/", views.typed_name_explained, name="typed_name_explained"),
    path(
        "characters/<id:pk>/duplicate/",
        views.character_duplicate,
        name="character_duplicate",
    ),
    path("characters/<id:pk>/delete/", views.character_delete, name="character_delete"),
]

"""A character's sheet, its JSON exports and its PDF: /characters/<pk>/, export.json,
export/foundry-twodsix.json, sheet.pdf."""

from django.urls import path

from . import views

urlpatterns = [
    path("characters/<id:pk>/", views.character_detail, name="character_detail"),
    path("characters/<id:pk>/export.json", views.character_export, name="character_export"),
    path(
        "characters/<id:pk>/export/foundry-twodsix.json",
        views.character_export_foundry,
        name="character_export_foundry",
    ),
    path("characters/<id:pk>/sheet.pdf", views.character_pdf, name="character_pdf"),
]

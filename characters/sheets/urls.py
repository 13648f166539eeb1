"""A character's sheet, its JSON export and its PDF: /characters/<pk>/, export.json, sheet.pdf."""

from django.urls import path

from . import views

urlpatterns = [
    path("characters/<int:pk>/", views.character_detail, name="character_detail"),
    path("characters/<int:pk>/export.json", views.character_export, name="character_export"),
    path("characters/<int:pk>/sheet.pdf", views.character_pdf, name="character_pdf"),
]

"""The play sheet and its actions: /characters/<pk>/play/…"""

from django.urls import path

from . import views

urlpatterns = [
    path("characters/<id:pk>/play/", views.character_play, name="character_play"),
    path(
        "characters/<id:pk>/play/condition/",
        views.character_condition,
        name="character_condition",
    ),
    path(
        "characters/<id:pk>/play/condition/undo/",
        views.character_condition_undo,
        name="character_condition_undo",
    ),
    path("characters/<id:pk>/play/roll/", views.character_roll, name="character_roll"),
    path("characters/<id:pk>/play/odds/", views.character_odds, name="character_odds"),
    path(
        "characters/<id:pk>/play/ip/award/",
        views.character_ip_award,
        name="character_ip_award",
    ),
    path(
        "characters/<id:pk>/play/ip/spend/",
        views.character_ip_spend,
        name="character_ip_spend",
    ),
    path(
        "characters/<id:pk>/play/ip/<id:entry>/decide/",
        views.character_ip_decide,
        name="character_ip_decide",
    ),
    path("characters/<id:pk>/play/wear/", views.character_wear, name="character_wear"),
    path(
        "characters/<id:pk>/play/credits/",
        views.character_credits,
        name="character_credits",
    ),
]

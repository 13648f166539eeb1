"""Encounters: started from a campaign, played at /encounters/<pk>/…"""

from django.urls import path

from . import system_views, views

urlpatterns = [
    path("campaigns/<id:pk>/encounters/new/", views.encounter_new, name="encounter_new"),
    path("encounters/<id:pk>/", views.encounter_detail, name="encounter_detail"),
    path("encounters/<id:pk>/live/", views.encounter_live, name="encounter_live"),
    path("encounters/<id:pk>/odds/", views.encounter_odds, name="encounter_odds"),
    path(
        "encounters/<id:pk>/initiative/",
        views.encounter_initiative,
        name="encounter_initiative",
    ),
    path("encounters/<id:pk>/attack/", views.encounter_attack, name="encounter_attack"),
    path("encounters/<id:pk>/turn/", views.encounter_turn, name="encounter_turn"),
    path("encounters/<id:pk>/morale/", views.encounter_morale, name="encounter_morale"),
    path(
        "encounters/<id:pk>/morale/odds/",
        views.encounter_morale_odds,
        name="encounter_morale_odds",
    ),
    path("encounters/<id:pk>/undo/", views.encounter_undo, name="encounter_undo"),
    path("encounters/<id:pk>/surprise/", views.encounter_surprise, name="encounter_surprise"),
    path("encounters/<id:pk>/join/", views.encounter_join, name="encounter_join"),
    path("encounters/<id:pk>/end/", views.encounter_end, name="encounter_end"),
    path("encounters/<id:pk>/alarm/", views.encounter_alarm, name="encounter_alarm"),
    path("encounters/<id:pk>/leader/", views.encounter_leader, name="encounter_leader"),
    # T4 and 2D6 (docs/encounters.md).
    path("encounters/<id:pk>/status/", system_views.encounter_status, name="encounter_status"),
    path("encounters/<id:pk>/react/", system_views.encounter_react, name="encounter_react"),
    path("encounters/<id:pk>/tactics/", system_views.encounter_tactics, name="encounter_tactics"),
    path("encounters/<id:pk>/hasten/", system_views.encounter_hasten, name="encounter_hasten"),
    path(
        "encounters/<id:pk>/leadership/",
        system_views.encounter_leadership,
        name="encounter_leadership",
    ),
]

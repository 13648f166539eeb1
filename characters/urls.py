from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("characters/", views.character_list, name="character_list"),
    path("campaigns/", views.campaign_list, name="campaign_list"),
]

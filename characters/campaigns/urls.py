"""Campaigns: /campaigns/…, and a character leaving its campaign, /characters/<pk>/detach/."""

from django.urls import path

from . import views

urlpatterns = [
    path("campaigns/", views.campaign_list, name="campaign_list"),
    path("campaigns/new/", views.campaign_new, name="campaign_new"),
    path("campaigns/join/<token:code>/", views.campaign_join, name="campaign_join"),
    path("campaigns/<id:pk>/", views.campaign_detail, name="campaign_detail"),
    path("campaigns/<id:pk>/settings/", views.campaign_settings, name="campaign_settings"),
    path(
        "campaigns/<id:pk>/invite/renew/",
        views.campaign_invite_renew,
        name="campaign_invite_renew",
    ),
    path(
        "campaigns/<id:pk>/invite/revoke/",
        views.campaign_invite_revoke,
        name="campaign_invite_revoke",
    ),
    path(
        "campaigns/<id:pk>/members/<id:user_id>/remove/",
        views.campaign_member_remove,
        name="campaign_member_remove",
    ),
    path("campaigns/<id:pk>/leave/", views.campaign_leave, name="campaign_leave"),
    path("campaigns/<id:pk>/attach/", views.campaign_attach, name="campaign_attach"),
    path("campaigns/<id:pk>/npcs/new/", views.campaign_npc_new, name="campaign_npc_new"),
    path("campaigns/<id:pk>/party.pdf", views.campaign_party_pdf, name="campaign_pdf"),
    path("campaigns/<id:pk>/award/", views.campaign_award, name="campaign_award"),
    path("characters/<id:pk>/detach/", views.character_detach, name="character_detach"),
]

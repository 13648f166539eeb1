from django.urls import path

from . import campaign_views, character_views, history_views, play_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("characters/", character_views.character_list, name="character_list"),
    path("characters/new/", character_views.character_new, name="character_new"),
    path("characters/import/", character_views.character_import, name="character_import"),
    path("characters/deleted/", history_views.character_trash, name="character_trash"),
    path("characters/<int:pk>/", character_views.character_detail, name="character_detail"),
    path("characters/<int:pk>/edit/", character_views.character_edit, name="character_edit"),
    path(
        "characters/<int:pk>/preview/", character_views.character_preview, name="character_preview"
    ),
    path(
        "characters/<int:pk>/autosave/",
        character_views.character_autosave,
        name="character_autosave",
    ),
    path(
        "characters/<int:pk>/duplicate/",
        character_views.character_duplicate,
        name="character_duplicate",
    ),
    path("characters/<int:pk>/delete/", character_views.character_delete, name="character_delete"),
    path(
        "characters/<int:pk>/export.json", character_views.character_export, name="character_export"
    ),
    path("characters/<int:pk>/sheet.pdf", character_views.character_pdf, name="character_pdf"),
    # In play: the play sheet and its actions.
    path("characters/<int:pk>/play/", play_views.character_play, name="character_play"),
    path(
        "characters/<int:pk>/play/condition/",
        play_views.character_condition,
        name="character_condition",
    ),
    path("characters/<int:pk>/play/roll/", play_views.character_roll, name="character_roll"),
    path("characters/<int:pk>/play/odds/", play_views.character_odds, name="character_odds"),
    path(
        "characters/<int:pk>/play/ip/award/",
        play_views.character_ip_award,
        name="character_ip_award",
    ),
    path(
        "characters/<int:pk>/play/ip/spend/",
        play_views.character_ip_spend,
        name="character_ip_spend",
    ),
    path(
        "characters/<int:pk>/play/ip/<int:entry>/decide/",
        play_views.character_ip_decide,
        name="character_ip_decide",
    ),
    path(
        "characters/<int:pk>/play/credits/",
        play_views.character_credits,
        name="character_credits",
    ),
    # History, restoring deleted characters, share links.
    path("characters/<int:pk>/history/", history_views.character_history, name="character_history"),
    path(
        "characters/<int:pk>/history/<int:number>/",
        history_views.character_revision,
        name="character_revision",
    ),
    path(
        "characters/<int:pk>/history/<int:number>/restore/",
        history_views.character_restore,
        name="character_restore",
    ),
    path(
        "characters/<int:pk>/undelete/",
        history_views.character_undelete,
        name="character_undelete",
    ),
    path("characters/<int:pk>/share/", history_views.character_share, name="character_share"),
    path(
        "characters/<int:pk>/share/<int:link>/revoke/",
        history_views.character_share_revoke,
        name="character_share_revoke",
    ),
    path("s/<str:token>/", history_views.shared_sheet, name="shared_sheet"),
    path("s/<str:token>/sheet.pdf", history_views.shared_sheet_pdf, name="shared_sheet_pdf"),
    path("campaigns/", views.campaign_list, name="campaign_list"),
    path("rules/", views.rules_notes, name="rules_notes"),
    # Campaigns: the referee's review and the members' roster, house rules, invites, NPCs.
    path("campaigns/new/", campaign_views.campaign_new, name="campaign_new"),
    path("campaigns/join/<str:code>/", campaign_views.campaign_join, name="campaign_join"),
    path("campaigns/<int:pk>/", campaign_views.campaign_detail, name="campaign_detail"),
    path(
        "campaigns/<int:pk>/settings/", campaign_views.campaign_settings, name="campaign_settings"
    ),
    path(
        "campaigns/<int:pk>/invite/renew/",
        campaign_views.campaign_invite_renew,
        name="campaign_invite_renew",
    ),
    path(
        "campaigns/<int:pk>/invite/revoke/",
        campaign_views.campaign_invite_revoke,
        name="campaign_invite_revoke",
    ),
    path(
        "campaigns/<int:pk>/members/<int:user_id>/remove/",
        campaign_views.campaign_member_remove,
        name="campaign_member_remove",
    ),
    path("campaigns/<int:pk>/leave/", campaign_views.campaign_leave, name="campaign_leave"),
    path("campaigns/<int:pk>/attach/", campaign_views.campaign_attach, name="campaign_attach"),
    path("campaigns/<int:pk>/npcs/new/", campaign_views.campaign_npc_new, name="campaign_npc_new"),
    path("campaigns/<int:pk>/party.pdf", campaign_views.campaign_party_pdf, name="campaign_pdf"),
    path("campaigns/<int:pk>/award/", play_views.campaign_award, name="campaign_award"),
    # The review workflow on one character.
    path("characters/<int:pk>/submit/", campaign_views.character_submit, name="character_submit"),
    path(
        "characters/<int:pk>/approve/", campaign_views.character_approve, name="character_approve"
    ),
    path("characters/<int:pk>/return/", campaign_views.character_return, name="character_return"),
    path("characters/<int:pk>/reopen/", campaign_views.character_reopen, name="character_reopen"),
    path(
        "characters/<int:pk>/comment/", campaign_views.character_comment, name="character_comment"
    ),
    path("characters/<int:pk>/detach/", campaign_views.character_detach, name="character_detach"),
]

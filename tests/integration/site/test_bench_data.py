"""`make bench` runs every suite in one process, on one throwaway database: the test data of
each suite must fit beside the others'."""

import pytest

from bench import bench_builder, bench_campaign, bench_encounter, bench_load


@pytest.mark.django_db
def test_every_suite_makes_its_data_in_a_database_another_suite_already_filled(monkeypatch):
    for suite in (bench_builder, bench_campaign, bench_load):
        # The test database stands in for the throwaway one.
        monkeypatch.setattr(suite, "throwaway_database", lambda name: None)

    _builder_player, builder_character = bench_builder._setup()
    campaign_referee = bench_campaign._setup()
    campaign = bench_campaign._party(campaign_referee)
    encounter_referee, encounter = bench_encounter._fight()
    load_players = bench_load._setup()
    printers = bench_load._pdf_setup()

    assert campaign.referee == campaign_referee
    assert encounter.campaign.referee == encounter_referee != campaign_referee
    assert builder_character.owner not in (campaign_referee, encounter_referee)
    assert len(load_players) == bench_load.USERS
    assert len(printers) == bench_load.PDF_ACCOUNTS

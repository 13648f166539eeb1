"""Migration 0016 moves the rounds left in a character's magazine from the encounters' combatant
rows to its play state: a half-used magazine a referee left in last week's fight is still
loaded after the upgrade."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("characters", "0015_encounter_log_lines_whole")]
AFTER = [("characters", "0016_rounds_loaded_are_the_characters")]

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture(autouse=True)
def _latest_schema_after():
    yield
    # The tests after this one expect every migration applied, later ones included.
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_each_character_keeps_the_rounds_of_the_last_encounter_it_fired_in():
    apps = _migrate(BEFORE)
    user = apps.get_model("auth", "User").objects.create(username="referee")
    campaign = apps.get_model("characters", "Campaign").objects.create(
        name="Spinward", referee=user
    )
    character_model = apps.get_model("characters", "Character")
    kira = character_model.objects.create(owner=user, document={}, name="Kira", campaign=campaign)
    dorn = character_model.objects.create(owner=user, document={}, name="Dorn", campaign=campaign)
    play_state = apps.get_model("characters", "PlayState")
    for character in (kira, dorn):
        play_state.objects.create(character=character, condition={})
    encounter = apps.get_model("characters", "Encounter")
    combatant = apps.get_model("characters", "Combatant")
    for name, rounds in (("Last month", 3), ("Last week", 9)):
        fight = encounter.objects.create(campaign=campaign, name=name, started_by=user)
        combatant.objects.create(
            encounter=fight,
            character=kira,
            name="Kira",
            side="party",
            ammunition={"Automatic pistol|6": rounds},
        )
        combatant.objects.create(encounter=fight, character=dorn, name="Dorn", side="party")
        # A group member's magazine stays the encounter's own.
        combatant.objects.create(
            encounter=fight,
            character=dorn,
            name="Corsair 1",
            side="opposition",
            condition={"lif": 20},
            ammunition={"Automatic pistol|6": 1},
        )

    apps = _migrate(AFTER)

    loaded = dict(
        apps.get_model("characters", "PlayState").objects.values_list("character", "loaded")
    )
    assert loaded == {kira.pk: {"Automatic pistol|6": 9}, dorn.pk: {}}

from django.db import migrations, models


def carry_rounds_loaded(apps, schema_editor):
    """A character's rounds loaded were kept in each encounter's combatant: its play state
    starts from those of the last encounter it fired in (one without a play state yet starts
    with none loaded: its first shot loads a magazine, as before)."""
    Combatant = apps.get_model("characters", "Combatant")
    PlayState = apps.get_model("characters", "PlayState")
    latest: dict[int, dict] = {}
    fired = (
        Combatant.objects.filter(character__isnull=False, condition__isnull=True)
        .exclude(ammunition={})
        .order_by("encounter__created_at", "encounter_id", "id")
    )
    for combatant in fired:
        latest[combatant.character_id] = combatant.ammunition
    for state in PlayState.objects.filter(character_id__in=latest):
        state.loaded = latest[state.character_id]
        state.save(update_fields=["loaded"])


class Migration(migrations.Migration):
    dependencies = [
        ("characters", "0015_encounter_log_lines_whole"),
    ]

    operations = [
        migrations.AddField(
            model_name="playstate",
            name="loaded",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(carry_rounds_loaded, migrations.RunPython.noop, elidable=True),
    ]

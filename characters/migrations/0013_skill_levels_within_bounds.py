"""Character documents take skill levels from 0 to 20 now (a level below 0 is no level, and a
skill's level is the dice its tests throw). A stored document with a level outside them would
no longer be read, and every page of that character would fail: each such level is brought to
the nearest bound (the listing columns follow at the character's next save). Revisions are left
as they were written: the history already shows a revision the engine cannot read as such, and
refuses to restore it."""

from django.db import migrations

# The bounds as they were when this was written (rules/data/creation.json); a migration keeps
# its own figures, so that it does the same thing however the catalog changes later.
LOWEST, HIGHEST = 0, 20


def _within_bounds(document: dict) -> bool:
    """Bring each skill level of ``document`` within the bounds; whether any changed."""
    changed = False
    for skill in document.get("skills") or ():
        level = skill.get("level") if isinstance(skill, dict) else None
        if (
            isinstance(level, int)
            and not isinstance(level, bool)
            and not LOWEST <= level <= HIGHEST
        ):
            skill["level"] = min(max(level, LOWEST), HIGHEST)
            changed = True
    return changed


def bound_skill_levels(apps, schema_editor):
    Character = apps.get_model("characters", "Character")
    for character in Character.objects.filter(document__has_key="skills").iterator():
        if isinstance(character.document, dict) and _within_bounds(character.document):
            character.save(update_fields=["document"])


class Migration(migrations.Migration):
    dependencies = [
        ("characters", "0012_encounter_leaders_alarm_and_armor_worn"),
    ]

    operations = [
        migrations.RunPython(bound_skill_levels, migrations.RunPython.noop, elidable=True),
    ]

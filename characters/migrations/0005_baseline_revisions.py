"""Start every existing character's history with its document as it stands: revision 1.

Characters saved before revisions existed have no earlier history to recover; from now on
every service that changes a document writes the next revision.
"""

from django.db import migrations


def baseline(apps, schema_editor):
    Character = apps.get_model("characters", "Character")
    Revision = apps.get_model("characters", "Revision")
    batch = []
    for character in Character.objects.filter(revisions__isnull=True).iterator(chunk_size=500):
        batch.append(
            Revision(
                character_id=character.pk,
                number=1,
                document=character.document,
                author_id=character.owner_id,
                action="History began",
                summary="The character as it was when revisions began to be kept.",
                created_at=character.updated_at,
            )
        )
        if len(batch) >= 500:
            Revision.objects.bulk_create(batch)
            batch = []
    Revision.objects.bulk_create(batch)


class Migration(migrations.Migration):
    dependencies = [("characters", "0004_in_play")]

    operations = [migrations.RunPython(baseline, migrations.RunPython.noop)]

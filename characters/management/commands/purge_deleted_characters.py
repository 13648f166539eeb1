"""Delete for good the characters deleted more than 30 days ago (run it daily, e.g. from cron).

Deleted characters are restorable by their owners for ``RESTORE_WINDOW``; the "Recently
deleted" page also purges its user's expired characters when it is opened.
"""

from django.core.management.base import BaseCommand

from characters.history import services as history_services
from characters.models import RESTORE_WINDOW


class Command(BaseCommand):
    help = f"Delete for good the characters deleted more than {RESTORE_WINDOW.days} days ago."

    def handle(self, *args, **options) -> None:
        purged = history_services.purge_deleted_characters()
        self.stdout.write(f"Purged {purged} character{'s' if purged != 1 else ''}.")

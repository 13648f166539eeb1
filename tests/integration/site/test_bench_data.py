"""`make bench` runs every suite in one process, on one throwaway database: the test data of
each suite must fit beside the others'."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench import bench_builder, bench_campaign, bench_encounter, bench_load

ROOT = Path(__file__).resolve().parents[3]


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


# A suite that only reads (pdf, http) sets Django up; one that writes (campaign, encounter,
# builder, load) migrates a database. Each order runs in a fresh interpreter, as `python -m
# bench` does: Django's settings load once per process.
SETUP_CALLS = {"reads": "setup_django()", "writes": "throwaway_database('campaign')"}


@pytest.mark.slow
@pytest.mark.parametrize("order", [("reads", "writes"), ("writes", "reads")])
def test_suites_set_django_up_in_any_order_on_a_throwaway_folder(order, tmp_path):
    probe = "\n".join(
        [
            "from bench.core import setup_django, throwaway_database",
            *(SETUP_CALLS[suite] for suite in order),
            "from django.conf import settings",
            "print(settings.DATABASES['default']['NAME'])",
            "print(settings.CACHES['pdf']['LOCATION'])",
        ]
    )
    # As from a shell: neither the tests' settings nor a folder chosen for them.
    unset = {"DJANGO_SETTINGS_MODULE", "FFA_VAR_DIR"}
    environment = {key: value for key, value in os.environ.items() if key not in unset}
    environment["TMPDIR"] = str(tmp_path)  # where the throwaway folder is made

    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=environment,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    database, pdf_cache = result.stdout.splitlines()
    folder = Path(database).parent
    assert folder.parent == tmp_path
    assert folder.name.startswith("ffa-bench-")
    assert Path(pdf_cache).is_relative_to(folder)

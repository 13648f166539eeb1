import pytest
from django.urls import reverse
from characters.encounters import services
from characters.models import CombatSystem
from tests.encounter_people import start
from tests.dice import Scripted

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("system", ["t4", "2d6"])
def test_pages(client, campaign, kira, dorn, corsair, referee, player1, system):
    fight = start(campaign, kira, dorn, corsair, corsairs=2, system=system)
    url = reverse("encounter_detail", args=[fight.pk])
    client.force_login(referee)
    r = client.get(url)
    assert r.status_code == 200
    open(f"/tmp/scratch/{system}-0.html", "w").write(r.content.decode())
    services.throw_initiative(encounter=fight, by=referee, rng=Scripted([6, 4, 3, 1, 5, 5, 5, 5]))
    r = client.get(url)
    assert r.status_code == 200
    open(f"/tmp/scratch/{system}-1.html", "w").write(r.content.decode())
    if system == "t4":
        services.take_turn(encounter=fight, by=referee, action="done_moving")
    r = client.get(url)
    assert r.status_code == 200
    open(f"/tmp/scratch/{system}-2.html", "w").write(r.content.decode())
    client.force_login(player1)
    r = client.get(url)
    assert r.status_code == 200
    open(f"/tmp/scratch/{system}-p.html", "w").write(r.content.decode())

"""The Rules notes page shows the rulings with figures read from the catalog."""

from django.urls import reverse

from rules import catalog


def test_the_rules_notes_page_is_public_and_shows_the_catalogs_tables(client):
    html = client.get(reverse("rules_notes")).content.decode()
    assert "Rules notes" in html
    assert "Minimum age = 18 + 4" in html
    assert "<td>200000</td>" in html  # the noble's best cash roll, from services.json
    assert "Lt Commander" in html
    assert html.count("<caption>") == 4
    assert all(service.name in html for service in catalog().services.values())


def test_the_rules_notes_page_says_how_far_a_flaw_may_lower_a_derived_attribute(client):
    html = client.get(reverse("rules_notes")).content.decode()
    floor = catalog().derived_flaw_floor
    assert f"no flaw may take a derived attribute below {floor}" in html


def test_the_rules_notes_page_shows_barbarian_ranks_untitled_where_the_table_has_no_title(client):
    html = client.get(reverse("rules_notes")).content.decode()
    assert "Barbarians hold ranks 1\u20136" in html
    assert "None" not in html

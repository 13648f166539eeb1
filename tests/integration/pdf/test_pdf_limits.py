"""No PDF can hold the web workers: one time budget per PDF, well under gunicorn's timeout; a
PDF stopped by it is refused at once when asked again; renders are limited per user and per
server; and every document the bounds accept prints well within the budget (long notes are laid
out as running text)."""

import fcntl
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.cache import caches
from django.urls import reverse
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

import rules
from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.pdf import guard
from characters.pdf import layout as pdf_layout
from characters.pdf import rendering as pdf_rendering
from characters.pdf import sheet as pdf_sheet
from ffa_site.workers import WORKER_TIMEOUT_SECONDS
from tests.factories import UserFactory
from tests.integration import sheet_documents as docs

NOTES_LENGTH = rules.catalog().bounds.notes_length
# The attack's notes: the most lines the length bound allows.
TEN_THOUSAND_LINES = "\n".join(["a"] * (NOTES_LENGTH // 2))


def heaviest_legal() -> dict:
    """Every bound at its most, and the notes that were the slowest to print."""
    return docs.largest_legal() | {"notes": TEN_THOUSAND_LINES}


@pytest.fixture
def owner_and_pdf(client):
    owner = UserFactory(username="owner")
    character = builder_services.create_character(owner=owner, document=docs.navy_pilot())
    client.force_login(owner)
    return owner, character, reverse("character_pdf", args=[character.pk])


@pytest.fixture
def renders(monkeypatch):
    """How many PDFs were really rendered (not served from the cache or refused)."""
    counted = []
    render = pdf_rendering._render

    def counting(*args, **kwargs):
        counted.append(1)
        return render(*args, **kwargs)

    monkeypatch.setattr(pdf_rendering, "_render", counting)
    return counted


# -- the time budget and its verdict -------------------------------------------------------------


def test_one_budget_for_the_whole_pdf_well_under_the_worker_timeout(monkeypatch):
    budgets = []
    real_budget = pdf_rendering._time_budget

    def recording(seconds):
        budgets.append(seconds)
        return real_budget(seconds)

    monkeypatch.setattr(pdf_rendering, "_time_budget", recording)
    party = [pdf_sheet.sheet_for_document(document) for document in docs.party(7)]

    pdf_rendering.render_sheets(party, summary=True)

    # A budget per sheet let seven heavy sheets run past gunicorn's 30 s: a killed worker.
    assert budgets == [django_settings.PDF_TIME_BUDGET_SECONDS]
    assert django_settings.PDF_TIME_BUDGET_SECONDS <= WORKER_TIMEOUT_SECONDS / 3


@pytest.mark.django_db
def test_a_render_past_its_time_budget_is_stopped_with_a_503(client, settings, owner_and_pdf):
    _, _, url = owner_and_pdf
    settings.PDF_TIME_BUDGET_SECONDS = 0.001

    stopped = client.get(url)

    assert stopped.status_code == 503
    assert int(stopped["Retry-After"]) == settings.PDF_REFUSAL_MEMORY_SECONDS
    assert "took longer than 0.001 seconds" in stopped.content.decode()
    assert "one sheet at a time" in stopped.content.decode()


@pytest.mark.django_db
def test_a_pdf_stopped_by_its_budget_is_refused_at_once_when_asked_again(
    client, settings, owner_and_pdf, renders
):
    _, _, url = owner_and_pdf
    settings.PDF_TIME_BUDGET_SECONDS = 0.001
    assert client.get(url).status_code == 503
    settings.PDF_TIME_BUDGET_SECONDS = 10.0

    again = [client.get(url) for _ in range(5)]

    assert [response.status_code for response in again] == [503] * 5
    assert len(renders) == 1  # only the first one was tried
    # Another worker, another app server: the verdict is in the shared cache.
    other_worker = caches.create_connection("pdf")
    assert other_worker.get(f"over-budget:{_etag(url, client)}") is not None


def _etag(url, client) -> str:
    return client.get(url, HTTP_IF_NONE_MATCH="*")["ETag"].strip('"')


@pytest.mark.django_db
def test_a_refused_pdf_is_tried_again_once_the_sheet_changes_or_the_verdict_expires(
    client, settings, owner_and_pdf
):
    owner, character, url = owner_and_pdf
    settings.PDF_TIME_BUDGET_SECONDS = 0.001
    assert client.get(url).status_code == 503
    settings.PDF_TIME_BUDGET_SECONDS = 10.0

    builder_services.save_character(
        character=character,
        by=owner,
        document=docs.navy_pilot() | {"notes": "Jumped to Regina."},
        expected_version=character.version,
    )
    assert client.get(url).status_code == 200

    character.refresh_from_db()
    builder_services.save_character(
        character=character,
        by=owner,
        document=docs.navy_pilot(),
        expected_version=character.version,
    )
    assert client.get(url).status_code == 503  # the first content: still remembered
    caches["pdf"].delete(f"over-budget:{_etag(url, client)}")  # as its time runs out
    assert client.get(url).status_code == 200


# -- limits per user and per server ---------------------------------------------------------------


@pytest.mark.django_db
def test_a_users_renders_may_take_so_much_time_a_window_and_cached_pdfs_still_open(
    client, settings, owner_and_pdf, renders
):
    owner, _, url = owner_and_pdf
    settings.PDF_RENDER_SECONDS_PER_USER = 0.001  # the first PDF of the window, and no more
    other = builder_services.create_character(owner=owner, document=docs.marine())
    assert client.get(url).status_code == 200

    refused = client.get(reverse("character_pdf", args=[other.pk]))

    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= settings.PDF_RENDER_WINDOW_SECONDS
    assert "in the last 10 minutes, the most they may" in refused.content.decode()
    assert len(renders) == 1
    # What was rendered before opens at once, from the cache; another user is not held back.
    assert client.get(url).status_code == 200
    someone_else = UserFactory(username="someone-else")
    theirs = builder_services.create_character(owner=someone_else, document=docs.marine())
    client.force_login(someone_else)
    assert client.get(reverse("character_pdf", args=[theirs.pk])).status_code == 200


def used_ms(who: str) -> int:
    return caches["throttle"].get(guard._render_time_key(who)) or 0


@pytest.mark.django_db
def test_every_render_is_charged_the_time_it_took_a_stopped_one_too(
    client, settings, owner_and_pdf
):
    owner, _, url = owner_and_pdf
    started = time.monotonic()
    client.get(url)
    rendering_ms = (time.monotonic() - started) * 1000
    assert 0 < used_ms(f"user:{owner.pk}") <= rendering_ms + 1

    settings.PDF_TIME_BUDGET_SECONDS = 0.05
    caches["throttle"].clear()
    client.get(url + "?size=a4")  # another PDF, stopped at its budget

    assert used_ms(f"user:{owner.pk}") >= 50


@pytest.mark.django_db
def test_a_party_pdf_always_gets_its_turn_then_the_window_is_used_up(client, settings):
    settings.PDF_RENDER_SECONDS_PER_USER = 0.001
    referee, player = UserFactory(username="referee"), UserFactory(username="player1")
    campaign = campaigns_services.create_campaign(referee=referee, name="Spinward Marches")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    for document in docs.party(5):
        builder_services.create_character(owner=player, document=document, campaign=campaign)
    client.force_login(referee)
    url = reverse("campaign_pdf", args=[campaign.pk])

    first = client.get(url, {"all": "1"})
    second = client.get(url, {"all": "1", "pencil": "1"})

    assert first.status_code == 200
    assert second.status_code == 429


@pytest.mark.django_db
def test_share_link_pdfs_are_counted_per_address(client, settings):
    from characters.history import services as history_services

    settings.PDF_RENDER_SECONDS_PER_USER = 0.001
    owner = UserFactory(username="owner")
    links = [
        history_services.create_share_link(
            character=builder_services.create_character(
                owner=owner, document=docs.navy_pilot() | {"name": name}
            ),
            by=owner,
        )
        for name in ("One", "Two")
    ]
    pdf = [reverse("shared_sheet_pdf", args=[link.token]) for link in links]

    assert client.get(pdf[0], REMOTE_ADDR="203.0.113.1").status_code == 200
    assert client.get(pdf[1], REMOTE_ADDR="203.0.113.1").status_code == 429
    assert client.get(pdf[1], REMOTE_ADDR="203.0.113.2").status_code == 200


@pytest.mark.django_db
def test_a_user_has_one_render_at_a_time(client, owner_and_pdf):
    owner, _, url = owner_and_pdf

    with guard._one_at_a_time(f"user:{owner.pk}"):  # a render of theirs in another worker
        busy = client.get(url)

    assert busy.status_code == 429
    assert "Another PDF of yours is being made" in busy.content.decode()
    assert client.get(url).status_code == 200


@pytest.mark.django_db
def test_a_server_renders_at_most_its_slots_at_once_and_keeps_answering(
    client, settings, owner_and_pdf
):
    _, _, url = owner_and_pdf
    settings.PDF_RENDER_SLOTS = 1
    folder = Path(settings.VAR_DIR) / "pdf-slots"
    folder.mkdir(parents=True, exist_ok=True)
    # Another worker process holds the one slot (flock locks belong to an open file).
    holder = os.open(folder / "slot-0", os.O_RDWR | os.O_CREAT)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        busy = client.get(url)
        page = client.get(reverse("character_list"))
    finally:
        os.close(holder)

    assert busy.status_code == 503
    assert busy["Retry-After"] == "5"
    assert page.status_code == 200
    assert client.get(url).status_code == 200


# -- every legal document prints, and cheaply ------------------------------------------------------


@hypothesis_settings(max_examples=200, deadline=None)
@given(
    # A pattern of lines, words and blanks, repeated up to the length bound.
    notes=st.builds(
        lambda parts, times: ("".join(parts) * times)[:NOTES_LENGTH],
        st.lists(st.sampled_from(["a", " ", "\n", "\n\n", "漢", "x" * 40]), max_size=30),
        st.integers(min_value=1, max_value=NOTES_LENGTH),
    )
)
def test_notes_of_any_shape_print_as_few_lines_as_their_length_needs(notes):
    printed = pdf_layout.notes_as_printed(notes)

    assert printed.count("\n") <= pdf_layout.NOTES_LINES_AS_TYPED
    # Nothing typed is lost: every word is printed, in order.
    words = printed.replace(pdf_layout.ZERO_WIDTH_SPACE, "").split()
    assert [word for word in words if word != pdf_layout.PILCROW] == notes.split()


def test_short_notes_print_as_typed_and_long_ones_as_running_text():
    typed = "Owes Marc 500 Cr.\n\nSister on Regina."
    many = "\n".join(f"item {n}" for n in range(pdf_layout.NOTES_LINES_AS_TYPED + 1))

    assert pdf_layout.notes_as_printed(typed) == typed
    assert pdf_layout.notes_as_printed(many).startswith("item 0 ¶ item 1 ¶ item 2")
    assert "\n" not in pdf_layout.notes_as_printed(many)


def _pages(content: bytes, tmp_path: Path) -> int:
    path = tmp_path / "sheet.pdf"
    path.write_bytes(content)
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True)
    return int(re.search(r"^Pages:\s+(\d+)", info.stdout, re.MULTILINE).group(1))


@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize(
    "notes",
    [
        TEN_THOUSAND_LINES,
        "\n".join(["ab"] * (NOTES_LENGTH // 3)),
        "\n" * NOTES_LENGTH,
        "漢" * NOTES_LENGTH,
        "x" * NOTES_LENGTH,
        ("y" * 65 + "\n") * pdf_layout.NOTES_LINES_AS_TYPED,
    ],
    ids=["10000-lines", "6666-lines", "blank-lines", "cjk", "one-word", "longest-typed"],
)
def test_the_heaviest_legal_documents_print_in_a_few_pages_within_the_budget(notes, tmp_path):
    document = docs.largest_legal() | {"notes": notes}
    rules.parse_document(document)  # within the bounds

    pdf = pdf_rendering.render_sheets([pdf_sheet.sheet_for_document(document)])

    # 10,000 lines as typed were 130 pages and longer than the budget.
    assert _pages(pdf.content, tmp_path) <= 20


@pytest.mark.django_db
def test_a_party_of_seven_of_the_heaviest_legal_characters_never_holds_a_worker_to_a_500(client):
    referee, player = UserFactory(username="referee"), UserFactory(username="player1")
    campaign = campaigns_services.create_campaign(referee=referee, name="Spinward Marches")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    for n in range(7):
        builder_services.create_character(
            owner=player, document=heaviest_legal() | {"name": f"Heavy {n}"}, campaign=campaign
        )
    client.force_login(referee)

    response = client.get(reverse("campaign_pdf", args=[campaign.pk]), {"all": "1"})

    # Printed, or (on a busy machine) stopped by the one budget and remembered: never a 500.
    assert response.status_code in (200, 503)

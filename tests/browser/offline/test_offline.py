"""Offline: the sheets and play sheets a player opened stay readable without a network, marked
read-only with their forms shut; nothing typed is lost; logging out forgets them."""

import re

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from characters.builder.services import create_character
from characters.models import Character
from tests.browser.pages import DESKTOP, PHONE, log_in, log_out, serious_violations, start_building
from tests.factories import UserFactory, character_document

pytestmark = pytest.mark.django_db(transaction=True)

BANNER = "#offline-banner"
# The controls offline.js shuts: every form control and htmx write on the page.
CONTROLS = "main input:not([type=hidden]), main select, main textarea, main button"
KEPT = "caches.keys().then(keys => keys.filter(key => key.startsWith('ffa-pages-')))"
KEPT_URLS = (
    "caches.open('ffa-pages-v1').then(c => c.keys()).then(r => r.map(q => new URL(q.url).pathname))"
)


@pytest.fixture
def mara():
    owner = UserFactory(username="player1")
    return create_character(owner=owner, document=character_document(name="Mara Quill"))


def open_under_the_worker(page, url: str) -> None:
    """Open ``url`` and wait until the service worker has kept it: it stores a page after
    handing it over (or, on a first visit, once it runs), so a test that went offline at once
    could find nothing kept on a busy machine."""
    page.goto(url)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    for _ in range(50):
        if url in page.evaluate(KEPT_URLS):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"the service worker did not keep {url} within 5 s")


def test_a_sheet_opened_on_a_first_visit_is_kept_without_opening_it_again(page, mara, live_server):
    # The worker starts with the first page, after that page came from the network: the sheet
    # a player opens first at the table (a link followed, already logged in) must still be
    # there when the wifi drops.
    signed_in = Client()
    signed_in.force_login(mara.owner)
    session = signed_in.cookies[settings.SESSION_COOKIE_NAME].value
    cookie = {"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url}
    page.context.add_cookies([cookie])
    page.goto(f"/characters/{mara.pk}/")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_function(
        f"{KEPT_URLS}.then(urls => urls.includes('/characters/{mara.pk}/'))", timeout=5000
    )

    page.context.set_offline(True)
    page.reload()
    expect(page.get_by_role("heading", name=re.compile("Mara Quill"), level=1)).to_be_visible()
    expect_read_only(page)


def kept_once_settled(page) -> list[str]:
    """The kept pages' caches, once offline.js has had time to forget them (it does not wait)."""
    for _ in range(20):
        kept = page.evaluate(KEPT)
        if not kept:
            break
        page.wait_for_timeout(100)
    return kept


def expect_read_only(page) -> None:
    expect(page.locator(BANNER)).to_be_visible()
    expect(page.locator(BANNER)).to_contain_text("Offline — read-only")
    controls = page.locator(CONTROLS)
    assert controls.count() > 0
    for index in range(controls.count()):
        expect(controls.nth(index)).to_be_disabled()


def test_a_sheet_and_a_play_sheet_opened_before_are_read_offline_with_their_forms_shut(page, mara):
    log_in(page, "player1")
    sheet, play = f"/characters/{mara.pk}/", f"/characters/{mara.pk}/play/"
    open_under_the_worker(page, sheet)
    page.goto(play)
    expect(page.locator(BANNER)).to_be_hidden()

    page.context.set_offline(True)
    page.goto(sheet)

    expect(page.get_by_role("heading", name="Mara Quill", level=1)).to_be_visible()
    expect(page.locator("#stat-block")).to_contain_text("Mara Quill, 0 terms no service")
    expect_read_only(page)

    page.goto(play)

    expect(page.get_by_role("heading", name=re.compile("Mara Quill"), level=1)).to_be_visible()
    expect_read_only(page)


def test_a_page_never_opened_says_it_is_offline_and_lists_what_can_be_read(page, mara):
    log_in(page, "player1")
    open_under_the_worker(page, f"/characters/{mara.pk}/")

    page.context.set_offline(True)
    page.goto(f"/characters/{mara.pk}/history/")

    expect(page.get_by_role("heading", name="Offline")).to_be_visible()
    expect(page.get_by_role("link", name=re.compile("Mara Quill"))).to_have_attribute(
        "href", f"/characters/{mara.pk}/"
    )


def test_going_offline_shuts_a_live_page_and_coming_back_opens_it(page, mara):
    log_in(page, "player1")
    open_under_the_worker(page, f"/characters/{mara.pk}/play/")
    damage = page.get_by_label("Damage", exact=True)
    expect(damage).to_be_enabled()

    page.context.set_offline(True)
    expect_read_only(page)

    page.context.set_offline(False)
    expect(page.locator(BANNER)).to_be_hidden()
    expect(damage).to_be_enabled()


def test_an_action_that_got_no_answer_says_it_may_not_be_recorded_and_offers_a_reload(page, mara):
    # The connection fails while the phone still counts itself online (the table's wifi, the
    # server restarting): the page stayed as it was, as if the tap had not been seen.
    log_in(page, "player1")
    page.goto(f"/characters/{mara.pk}/play/")
    page.wait_for_load_state("load")
    lif = page.locator("[data-lif]").inner_text()
    page.route("**/play/condition/", lambda route: route.abort("internetdisconnected"))
    damage = page.get_by_label("Damage", exact=True)
    damage.fill("3")
    page.locator('[data-action="damage"]').click()

    expect(page.locator(BANNER)).to_contain_text("No answer: this may not have been recorded")
    expect(damage).to_have_value("3")
    page.unroute("**/play/condition/")
    page.get_by_role("button", name="Reload").click()
    expect(page.locator(BANNER)).to_be_hidden()
    expect(page.locator("[data-lif]")).to_have_text(lif)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_play_sheet_shut_offline_passes_axe_and_keeps_its_words_readable(page, mara, viewport):
    # Only the controls are dimmed: the words in the forms (headings, hints, why an action is
    # not open) are still read while the page is read-only.
    page.set_viewport_size(viewport)
    log_in(page, "player1")
    page.goto(f"/characters/{mara.pk}/play/")
    page.wait_for_load_state("load")

    page.context.set_offline(True)

    expect_read_only(page)
    assert serious_violations(page) == []


def test_a_kept_copy_stays_read_only_when_the_connection_returns_and_offers_a_reload(page, mara):
    log_in(page, "player1")
    sheet = f"/characters/{mara.pk}/"
    open_under_the_worker(page, sheet)
    page.context.set_offline(True)
    page.goto(sheet)

    page.context.set_offline(False)

    expect(page.locator(BANNER)).to_contain_text("This is an offline copy")
    expect(page.locator("main button").first).to_be_disabled()
    page.get_by_role("button", name="Reload").click()
    expect(page.locator(BANNER)).to_be_hidden()
    expect(page.locator("main button").first).to_be_enabled()


def test_an_edit_made_as_the_connection_goes_is_kept_and_saved_when_it_returns(page):
    UserFactory(username="player1")
    log_in(page, "player1")
    start_building(page, "Mara")
    state = page.locator("[data-save-state]")
    expect(state).to_have_text("All changes saved")

    page.fill("input[name=DEX]", "9")
    page.context.set_offline(True)  # before the pause after which it saves by itself

    expect(state).to_contain_text("Not saved: offline")
    expect(page.locator("input[name=DEX]")).to_be_disabled()
    expect(page.locator("input[name=DEX]")).to_have_value("9")
    assert Character.objects.get(name="Mara").document["attributes"]["DEX"] == 7

    page.context.set_offline(False)

    expect(state).to_have_text("All changes saved")
    assert Character.objects.get(name="Mara").document["attributes"]["DEX"] == 9


def test_logging_out_forgets_the_sheets_kept_on_this_device(page, mara):
    log_in(page, "player1")
    sheet = f"/characters/{mara.pk}/"
    open_under_the_worker(page, sheet)
    assert page.evaluate(KEPT_URLS) == [sheet]

    log_out(page)

    assert kept_once_settled(page) == []
    page.context.set_offline(True)
    page.goto(sheet)
    expect(page.get_by_role("heading", name="Offline")).to_be_visible()
    expect(page.get_by_text("Mara Quill")).to_have_count(0)


def test_someone_else_logging_in_does_not_find_the_last_reader_s_sheets(page, mara):
    UserFactory(username="player2")
    log_in(page, "player1")
    sheet = f"/characters/{mara.pk}/"
    open_under_the_worker(page, sheet)
    assert page.evaluate(KEPT_URLS) == [sheet]  # kept, so that forgetting it is seen
    page.context.clear_cookies()  # the session ended without logging out

    log_in(page, "player2")

    assert kept_once_settled(page) == []


def test_only_the_sheets_opened_are_kept_never_account_pages_or_answers_to_posts(page, mara):
    log_in(page, "player1")
    play = f"/characters/{mara.pk}/play/"
    open_under_the_worker(page, play)
    page.get_by_label("Damage", exact=True).fill("2")
    page.get_by_role("button", name="Mark the damage").click()  # a POST from the play sheet
    expect(page.get_by_role("button", name="Undo: Took 2 lethal damage")).to_be_visible()
    for url in ("/", "/characters/", "/accounts/password/", f"/characters/{mara.pk}/history/"):
        page.goto(url)

    assert page.evaluate(KEPT_URLS) == [play]


def test_the_worker_forgets_the_kept_sheets_when_the_server_says_the_session_is_gone(page, mara):
    log_in(page, "player1")
    sheet = f"/characters/{mara.pk}/"
    open_under_the_worker(page, sheet)
    assert page.evaluate(KEPT_URLS) == [sheet]
    page.context.clear_cookies()  # the session ended without the logout button
    # The pages' script cannot delete them (as where its storage is refused): the worker must.
    page.add_init_script("window.caches.delete = async () => false;")

    page.goto(sheet)

    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    assert kept_once_settled(page) == []


def test_a_kept_copy_does_not_say_back_online_while_the_server_does_not_answer(page, mara):
    log_in(page, "player1")
    sheet = f"/characters/{mara.pk}/"
    open_under_the_worker(page, sheet)
    page.context.set_offline(True)
    page.goto(sheet)
    page.context.route("**/healthz", lambda route: route.abort())

    page.context.set_offline(False)

    expect(page.locator(BANNER)).to_contain_text("The server cannot be reached")
    expect(page.locator(BANNER)).not_to_contain_text("Back online")
    expect(page.locator("main button").first).to_be_disabled()

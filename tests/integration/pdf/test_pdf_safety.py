"""The PDF's cache and ETag, its security (nothing is fetched, nothing user-typed reaches
markup or CSS), the URL fetcher, and its tab grids (every figure fits its column)."""

import http.server
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from html.parser import HTMLParser

import pytest
import weasyprint
from django.core.cache import caches
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import reverse
from PIL import Image

from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.core import wording
from characters.pdf import rendering as pdf_rendering
from characters.pdf import sheet as pdf_sheet
from characters.play import services as play_services
from rules import HouseRules, catalog, check_document, play
from tests.dice import Scripted
from tests.factories import UserFactory
from tests.integration import sheet_documents as docs
from tests.integration.pdf.rendered import (
    STATIC,
    _assert_nothing_overlaps_or_leaves_the_page,
    page_count,
    pdf_text,
    poppler_tool,
    render,
)
from tests.pdf_structure import structure, untagged_content


def test_an_unchanged_sheet_comes_from_the_cache():
    sheet = pdf_sheet.sheet_for_document(docs.navy_pilot())
    first = pdf_rendering.render_sheets([sheet])

    start = time.perf_counter()
    again = pdf_rendering.render_sheets([pdf_sheet.sheet_for_document(docs.navy_pilot())])
    elapsed = time.perf_counter() - start

    assert not first.from_cache
    assert again.from_cache
    assert again.content == first.content
    assert again.etag == first.etag
    assert elapsed < 0.1
    assert first.content.startswith(b"%PDF-")


def test_the_etag_follows_everything_that_shapes_the_pdf():
    def etag(document, *, page_size="letter", **extras):
        return pdf_rendering.sheets_etag(
            [pdf_sheet.sheet_for_document(document, **extras)], page_size=page_size
        )

    base = etag(docs.navy_pilot())
    changed = docs.navy_pilot()
    changed["notes"] = "A new note."

    assert base == etag(docs.navy_pilot())
    assert re.fullmatch(r'"[0-9a-f]{64}"', base)
    assert base != etag(changed)
    assert base != etag(docs.navy_pilot(), page_size="a4")
    assert base != etag(docs.navy_pilot(), house_rules=HouseRules(budget=120))
    assert base != etag(docs.navy_pilot(), status="Approved")
    assert base != etag(docs.navy_pilot(), rolls=[{"die": 6, "rolled_at": "2026-01-02T03:04"}])
    assert (
        base == pdf_rendering.render_sheets([pdf_sheet.sheet_for_document(docs.navy_pilot())]).etag
    )


def test_pdf_response_answers_304_to_a_client_that_has_the_pdf():
    sheets = [pdf_sheet.sheet_for_document(docs.navy_pilot())]
    factory = RequestFactory()

    response = pdf_rendering.pdf_response(
        factory.get("/"), sheets, page_size="a4", filename="Mara T!"
    )
    repeat = pdf_rendering.pdf_response(
        factory.get("/", HTTP_IF_NONE_MATCH=response["ETag"]), sheets, page_size="a4"
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == 'inline; filename="Mara-T-a4.pdf"'
    assert response["Cache-Control"] == "private, no-cache"
    assert response.content.startswith(b"%PDF-")
    assert repeat.status_code == 304
    assert repeat["ETag"] == response["ETag"]


def test_a_sheet_rendered_by_one_worker_is_served_from_the_cache_by_every_other():
    # Without Redis the cache is files under FFA_VAR_DIR: another cache connection, as another
    # worker process holds, reads the same store.
    sheet = pdf_sheet.sheet_for_document(docs.navy_pilot())
    first_worker = pdf_rendering.render_sheets([sheet])

    other_worker = caches.create_connection("pdf")

    assert other_worker.get(first_worker.etag.strip('"')) == first_worker.content
    assert pdf_rendering.render_sheets([sheet]).from_cache


def test_a_pdf_larger_than_a_cache_entry_is_not_cached(monkeypatch):
    monkeypatch.setattr(pdf_rendering, "CACHE_MAX_BYTES", 10)
    sheet = pdf_sheet.sheet_for_document(docs.navy_pilot())
    pdf_rendering.render_sheets([sheet])
    assert not pdf_rendering.render_sheets([sheet]).from_cache


class _Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:
        self.requests.append(self.path)
        # A redirect to a local file, in case anything follows it.
        self.send_response(302)
        self.send_header("Location", "file:///etc/passwd")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[str]:
    """An HTTP server on the loopback interface that records every request it gets."""
    _Recorder.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _bait(origin: str, tag: str) -> str:
    return (
        f'<img src="{origin}/{tag}.png"><link rel="attachment" href="{origin}/{tag}.txt">'
        f'<div style="background: url({origin}/{tag}-css.png)">x</div>'
        f'<img src="file:///etc/passwd"><link rel=attachment href="file:///etc/passwd">'
    )


@pytest.mark.usefixtures("poppler")
def test_markup_typed_into_a_character_fetches_and_embeds_nothing(tmp_path, listener):
    document = docs.navy_pilot()
    document["name"] = f'<img src="{listener}/name.png">url({listener}/n)'[:100]
    document["notes"] = _bait(listener, "notes")
    # Names are short (the catalog's bounds), so they get the shorter baits.
    document["traits"][0]["name"] = (
        f'<img src="{listener}/trait.png"><link rel="attachment" href="{listener}/trait.txt">'
    )
    document["equipment"].append({"item": f'<img src="{listener}/item.png">', "quantity": 1})
    document["homeworld"] = f"url({listener}/home)"

    content = render(document, player=_bait(listener, "player"), status="url(x)").content
    time.sleep(0.2)  # let any request that was made arrive

    assert _Recorder.requests == []
    images = poppler_tool("pdfimages", "-list", content=content, tmp_path=tmp_path)
    assert len(images.strip().splitlines()) == 2, images  # the header only: no image
    attachments = poppler_tool("pdfdetach", "-list", content=content, tmp_path=tmp_path)
    assert attachments.startswith("0 embedded files"), attachments
    # The markup is there, as text: escaped, not interpreted. (Long words may wrap anywhere.)
    text = "".join(pdf_text(content, tmp_path).split())
    assert "root:" not in text
    assert f'<imgsrc="{listener}/notes.png">' in text
    assert f'<linkrel="attachment"href="{listener}/trait.txt">' in text
    assert f"url({listener}/home)" in text


class _Markup(HTMLParser):
    """The elements and attributes of an HTML document."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(attrs)


def _markup(sheet: pdf_sheet.Sheet) -> tuple[_Markup, str]:
    html = render_to_string(pdf_rendering.TEMPLATE, {"sheets": [pdf_sheet.sheet_context(sheet)]})
    markup = _Markup()
    markup.feed(html)
    return markup, html


def test_user_text_never_reaches_markup_an_attribute_or_css():
    document = docs.navy_pilot()
    document["name"] = '"><style>*{}</style><p style="x'
    document["notes"] = "</div><img src=x onerror=y>"
    document["traits"][0]["name"] = "<link rel=stylesheet href=x>"
    baited = pdf_sheet.sheet_for_document(document, player="<b>p</b>", status="' style='x")
    harmless = docs.navy_pilot()
    harmless["notes"] = "Notes."
    plain = pdf_sheet.sheet_for_document(harmless, player="p", status="x")

    markup, html = _markup(baited)

    # The same elements as a harmless sheet: the template's, none of the user's.
    assert markup.tags == _markup(plain)[0].tags
    template_attributes = {"class", "charset", "content", "lang", "name", "scope"}
    assert {name for name, _ in markup.attributes} <= template_attributes
    assert "style" not in markup.tags
    assert "&lt;/div&gt;&lt;img src=x onerror=y&gt;" in html
    assert "&lt;b&gt;p&lt;/b&gt;" in html


def test_even_markup_that_reached_the_html_fetches_nothing(listener, tmp_path):
    # Defence in depth: were escaping ever bypassed, the fetcher still refuses the request.
    style = f"<style>p {{ background: url({listener}/style) }}</style>"
    html = _bait(listener, "direct") + style + "<p>x"

    content = weasyprint.HTML(
        string=html,
        base_url=pdf_rendering.ASSET_BASE_URL,
        url_fetcher=pdf_rendering.StaticOnlyFetcher(),
    ).write_pdf()
    time.sleep(0.2)

    assert _Recorder.requests == []
    assert b"root:" not in content


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/x.png",
        "https://example.com/font.ttf",
        "https://ffa-static.invalid.example.com/static/css/sheet.css",
        "ftp://127.0.0.1/x",
        "file:///etc/passwd",
        f"file://{STATIC}/css/sheet.css",  # even a static file, by any other way than ours
        pdf_rendering.ASSET_BASE_URL + "../../../../etc/passwd",
        pdf_rendering.ASSET_BASE_URL + "css/..%2f..%2f..%2f..%2f..%2fetc/passwd",
        pdf_rendering.ASSET_BASE_URL + "%2fetc/passwd",
        pdf_rendering.ASSET_BASE_URL + "css/no-such-file.css",
        pdf_rendering.ASSET_BASE_URL + "css",
        "HTTPS://FFA-STATIC.INVALID/static/css/sheet.css",
        "javascript:alert(1)",
    ],
)
def test_the_fetcher_refuses_anything_but_our_static_files(url):
    with pytest.raises(pdf_rendering.UnsafeURL):
        pdf_rendering.StaticOnlyFetcher().fetch(url)


def test_the_fetcher_serves_static_files_and_data_uris():
    fetcher = pdf_rendering.StaticOnlyFetcher()

    css = fetcher.fetch(pdf_rendering.ASSET_BASE_URL + "css/sheet.css")
    font = fetcher.fetch(pdf_rendering.ASSET_BASE_URL + "fonts/LiberationSans-Regular.ttf")
    data = fetcher.fetch("data:text/plain;base64,aGVsbG8=")

    assert css.content_type == "text/css"
    assert b"@font-face" in css.read()
    assert font.read() == (STATIC / "fonts" / "LiberationSans-Regular.ttf").read_bytes()
    assert data.read() == b"hello"
    assert data.content_type == "text/plain"


def test_the_fetcher_does_not_follow_a_link_out_of_the_static_directory(tmp_path):
    root = tmp_path / "static"
    root.mkdir()
    (root / "ok.css").write_text("p {}")
    (tmp_path / "secret.txt").write_text("secret")
    (root / "escape.txt").symlink_to(tmp_path / "secret.txt")
    fetcher = pdf_rendering.StaticOnlyFetcher(roots=[("", root.resolve())])

    assert fetcher.fetch(pdf_rendering.ASSET_BASE_URL + "ok.css").read() == b"p {}"
    with pytest.raises(pdf_rendering.UnsafeURL):
        fetcher.fetch(pdf_rendering.ASSET_BASE_URL + "escape.txt")


def test_every_weapon_and_armor_of_the_catalog_prints_inside_its_table(tmp_path):
    # A document with every weapon and armor of the catalog (far over budget, which is fine).
    cat = catalog()
    document = docs.navy_pilot()
    document["equipment"] = [
        {"item": item.name, "tl": item.tl, "quantity": 2}
        for item in cat.equipment
        if item.table in ("melee", "ranged", "armor")
    ]

    content = render(document, page_size="a4").content

    _assert_nothing_overlaps_or_leaves_the_page(content, tmp_path)


@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize("page_size", ["letter", "a4"])
def test_the_weapons_heading_says_how_damage_works_in_full_on_one_line(tmp_path, page_size):
    text = poppler_tool(
        "pdftotext",
        "-layout",
        content=render(docs.longest(), page_size=page_size).content,
        tmp_path=tmp_path,
    )
    heading = next(line.strip() for line in text.splitlines() if "19. WEAPONS" in line)

    times = "\N{MULTIPLICATION SIGN}"
    assert heading == f"19. WEAPONS · DAMAGE: MELEE DMG + STR DV 4, RANGED DMG {times} EN"


@pytest.mark.usefixtures("poppler")
def test_the_sheet_is_a_tagged_pdf_a_screen_reader_can_follow(tmp_path):
    info = poppler_tool("pdfinfo", content=render(docs.navy_pilot()).content, tmp_path=tmp_path)

    assert re.search(r"^Tagged:\s+yes$", info, re.MULTILINE)


@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize("document", [docs.navy_pilot(), docs.vargr_scout(), docs.longest()])
def test_each_box_title_is_a_heading_a_reader_can_jump_to(tmp_path, document):
    content = render(document).content
    text = pdf_text(content, tmp_path)
    # The numbered boxes, 10 to 23 (1 to 9 are the fields at the top, a table of their own).
    boxes = [number for number in range(10, 25) if f"{number}. " in text]

    tree = structure(content)

    assert boxes == list(range(10, 24))
    assert len(tree.find("H1")) == 2  # the front and the reverse
    assert len(tree.find("H2")) == len(boxes)
    assert not tree.find("H3")


@pytest.mark.usefixtures("poppler")
def test_figures_in_rows_and_columns_are_tables_with_header_cells(tmp_path):
    content = render(docs.longest()).content

    tables = structure(content).find("Table")

    with_row_heads = 0
    for table in tables:
        (head,) = table.kids("THead")
        columns = [cell for row in head.kids("TR") for cell in row.children]
        assert {cell.tag for cell in columns} == {"TH"}
        assert {cell.scope for cell in columns} == {"Column"}
        rows = [row for body in table.kids("TBody") for row in body.kids("TR")]
        assert rows
        for row in rows:
            assert len(row.children) == len(columns)
            heads = [cell for cell in row.children if cell.tag == "TH"]
            assert [cell.scope for cell in heads] in ([], ["Row"])
            with_row_heads += bool(heads)
            for cell in row.kids("TD"):
                assert cell.headers >= 1  # its column's head, and its row's where it has one
    # Attributes, derived, wounds, three skill columns, traits, rolls, weapons, armor, gear.
    assert sum(bool(table.kids("TBody")[0].kids("TR")[0].kids("TH")) for table in tables) == 11
    assert len(tables) == 13  # and the two tables of fields under the masthead


@pytest.mark.usefixtures("poppler")
def test_a_row_of_figures_reads_cell_by_cell(tmp_path):
    report = check_document(docs.navy_pilot())
    content = render(docs.navy_pilot()).content

    text = pdf_text(content, tmp_path)
    attributes = structure(content).find("Table")[2]  # after the two tables of fields

    strength = report.attribute("STR")
    dm = f"{wording.MINUS}{-strength.dm}" if strength.dm < 0 else f"+{strength.dm}"
    assert f"STR {strength.level} {strength.hex} {dm} {strength.dv} Strength" in text
    first_row = attributes.kids("TBody")[0].kids("TR")[0]
    assert [cell.tag for cell in first_row.children] == ["TH", "TD", "TD", "TD", "TD", "TD"]


@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize("summary", [False, True])
def test_the_running_footer_and_continued_headings_are_artifacts(summary):
    document = docs.navy_pilot()
    document["notes"] = "\n".join(f"Log entry {day}: patrol, no contacts." for day in range(150))
    sheets = [pdf_sheet.sheet_for_document(document)]

    content = pdf_rendering.render_sheets(sheets, summary=summary).content

    assert untagged_content(content) == 0


@pytest.mark.usefixtures("poppler")
def test_a_pdf_for_pencil_leaves_marks_wounds_and_credits_blank(client, pilot_in_play, tmp_path):
    play_services.take_damage(
        character=pilot_in_play, by=pilot_in_play.owner, amount=9, form="L", rng=Scripted([2])
    )
    client.force_login(pilot_in_play.owner)
    url = reverse("character_pdf", args=[pilot_in_play.pk])

    pen = pdf_text(client.get(url).content, tmp_path)
    pencil = pdf_text(client.get(url, {"pencil": "1"}).content, tmp_path)

    assert "LIF now" in pen
    assert "credits now Cr" in pen
    assert "LIF now" not in pencil
    assert "wound (9 damage" not in pencil
    assert "credits now" not in pencil
    assert f"Cr200 · credits {pdf_sheet.PENCIL_BLANK}" in pencil


@pytest.mark.usefixtures("poppler")
def test_a_campaign_that_prints_for_pencil_does_so_unless_a_download_asks_for_pen(
    client, pilot_in_play, tmp_path
):
    referee = UserFactory(username="referee")
    campaign = campaigns_services.create_campaign(
        referee=referee, name="Pencil Marches", pencil_pdfs=True
    )
    campaigns_services.join_campaign(user=pilot_in_play.owner, code=campaign.invite_code)
    campaigns_services.attach_character(
        character=pilot_in_play, campaign=campaign, by=pilot_in_play.owner
    )
    client.force_login(pilot_in_play.owner)
    url = reverse("character_pdf", args=[pilot_in_play.pk])

    by_default = pdf_text(client.get(url).content, tmp_path)
    pen = pdf_text(client.get(url, {"pencil": "0"}).content, tmp_path)

    assert "credits now" not in by_default
    assert "credits now Cr" in pen


@pytest.mark.usefixtures("poppler")
def test_a_party_pdf_opens_with_a_one_page_summary_of_the_party(tmp_path):
    documents = [docs.navy_pilot(), docs.marine(), docs.vargr_scout()]
    sheets = [pdf_sheet.sheet_for_document(d, player=f"player{n}") for n, d in enumerate(documents)]
    reports = [check_document(document) for document in documents]

    with_summary = pdf_rendering.render_sheets(sheets, summary=True).content
    without = pdf_rendering.render_sheets(sheets).content
    raw = poppler_tool(
        "pdftotext", "-f", "1", "-l", "1", "-raw", content=with_summary, tmp_path=tmp_path
    )
    first_page = " ".join(raw.split())

    assert page_count(with_summary, tmp_path) == page_count(without, tmp_path) + 1
    assert "PARTY SUMMARY" in first_page
    for n, report in enumerate(reports):
        assert report.name in first_page
        assert f"player{n}" in first_page
        assert report.upp in first_page
        assert f"DEF {report.derived.DEF} INI {report.derived.INI}" in first_page
    assert "Automatic pistol" in first_page  # the navy pilot's weapon
    assert pdf_rendering.sheets_etag(sheets, summary=True) != pdf_rendering.sheets_etag(sheets)


@pytest.mark.usefixtures("poppler")
def test_the_party_summary_table_keeps_within_the_rules_of_its_masthead(tmp_path):
    sheets = [pdf_sheet.sheet_for_document(d) for d in (docs.navy_pilot(), docs.marine())]
    pdf = tmp_path / "party.pdf"
    pdf.write_bytes(pdf_rendering.render_sheets(sheets, summary=True).content)
    subprocess.run(
        ["pdftoppm", "-gray", "-png", "-r", "100", "-f", "1", "-l", "1", "-singlefile", pdf,
         tmp_path / "summary"],
        check=True,
    )  # fmt: skip
    page = Image.open(tmp_path / "summary.png").convert("L")
    pixels = page.tobytes()  # one byte a pixel, row after row
    rows = [pixels[y * page.width : (y + 1) * page.width] for y in range(page.height)]
    dark = [[x for x, value in enumerate(row) if value < 128] for row in rows]
    masthead_rule = next(row for row in dark if row)

    # Looked at as a picture: nothing on the page (the table's rules included) reaches further
    # right than the masthead's heavy rule, which runs from margin to margin.
    assert max(max(row) for row in dark if row) <= max(masthead_rule) + 1


@pytest.mark.usefixtures("poppler")
def test_the_party_summary_gives_a_hurt_characters_life_and_defence_as_they_stand(tmp_path):
    report = check_document(docs.navy_pilot())
    condition, _events = play.take_damage(play.condition_for(report), amount=9, form="L")
    hurt = pdf_sheet.sheet_for_document(docs.navy_pilot(), condition=condition)
    unhurt = pdf_sheet.sheet_for_document(docs.marine())

    pdf = pdf_rendering.render_sheets([hurt, unhurt], summary=True).content
    raw = poppler_tool("pdftotext", "-f", "1", "-l", "1", "-raw", content=pdf, tmp_path=tmp_path)
    first_page = " ".join(raw.split())

    lif = report.derived.LIF
    assert f"LIF {lif - 9} of {lif}" in first_page
    assert f"DEF 4 (from {report.derived.DEF})" in first_page
    marine = check_document(docs.marine()).derived
    assert f"DEF {marine.DEF} INI {marine.INI}" in first_page
    assert f"LIF {marine.LIF} " in first_page


@pytest.mark.usefixtures("poppler")
def test_no_figure_of_the_party_summary_is_split_across_two_lines(tmp_path):
    # 'LIF 11' at the end of one line and 'of 26' on the next read as two figures.
    report = check_document(docs.navy_pilot())
    condition, _events = play.take_damage(play.condition_for(report), amount=15, form="L")
    hurt = pdf_sheet.sheet_for_document(docs.navy_pilot(), condition=condition)

    pdf = pdf_rendering.render_sheets([hurt], summary=True).content
    lines = poppler_tool(
        "pdftotext", "-f", "1", "-l", "1", "-raw", content=pdf, tmp_path=tmp_path
    ).splitlines()

    lif, now = report.derived.LIF, play.effective(report, condition).derived
    for figure in (
        f"LIF {lif - 15} of {lif}",
        f"DEF {now.DEF} (from {report.derived.DEF})",
        f"INI {now.INI} (from {report.derived.INI})",
        f"MOV {now.MOV} (from {report.derived.MOV})",
    ):
        assert any(figure in line for line in lines), figure


@pytest.mark.usefixtures("poppler")
def test_the_party_pdf_is_titled_after_its_campaign_whose_name_heads_the_summary(tmp_path):
    sheets = [pdf_sheet.sheet_for_document(d) for d in (docs.navy_pilot(), docs.marine())]

    content = pdf_rendering.render_sheets(sheets, summary=True, title="Spinward Run").content
    info = poppler_tool("pdfinfo", content=content, tmp_path=tmp_path)
    raw = poppler_tool(
        "pdftotext", "-f", "1", "-l", "1", "-raw", content=content, tmp_path=tmp_path
    )

    assert re.search(r"^Title:\s+Spinward Run · Personal Data and History$", info, re.MULTILINE)
    assert "SPINWARD RUN · PARTY SUMMARY" in " ".join(raw.split())
    untitled = pdf_rendering.sheets_etag(sheets, summary=True)
    assert pdf_rendering.sheets_etag(sheets, summary=True, title="Spinward Run") != untitled


@pytest.mark.usefixtures("poppler")
def test_the_party_summary_gives_each_characters_armor_and_weapon_damage(tmp_path):
    marine = docs.marine()
    sheets = [pdf_sheet.sheet_for_document(d) for d in (docs.longest(), marine)]
    report = check_document(docs.longest())
    str_dv = report.attribute("STR").dv

    content = pdf_rendering.render_sheets(sheets, summary=True).content
    raw = poppler_tool(
        "pdftotext", "-f", "1", "-l", "1", "-raw", content=content, tmp_path=tmp_path
    )
    first_page = " ".join(raw.split())

    assert f"{report.equipment.armor_worn} (AV {report.equipment.armor_av})" in first_page
    assert "Laser carbine DMG 12" in first_page  # ranged: the weapon's DMG
    assert f"Cutlass DMG {1 + str_dv}" in first_page  # melee: its bonus on the wielder's STR DV
    marine_armor = check_document(marine).equipment
    assert f"AV {marine_armor.armor_av}" in first_page


@pytest.mark.django_db
@pytest.mark.usefixtures("poppler")
def test_the_campaigns_party_pdf_carries_the_campaigns_name(client, tmp_path):
    referee = UserFactory(username="referee")
    campaign = campaigns_services.create_campaign(referee=referee, name="Spinward Run")
    player = UserFactory(username="player")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    character = builder_services.create_character(owner=player, document=docs.navy_pilot())
    campaigns_services.attach_character(character=character, campaign=campaign, by=player)
    client.force_login(referee)

    pdf = client.get(reverse("campaign_pdf", args=[campaign.pk]), {"all": "1"}).content
    info = poppler_tool("pdfinfo", content=pdf, tmp_path=tmp_path)

    assert re.search(r"^Title:\s+Spinward Run · ", info, re.MULTILINE)


@pytest.mark.usefixtures("poppler")
def test_a_pencil_sheet_prints_no_running_credits_in_its_stat_block(
    client, pilot_in_play, tmp_path
):
    client.force_login(pilot_in_play.owner)
    url = reverse("character_pdf", args=[pilot_in_play.pk])

    pencil = pdf_text(client.get(url, {"pencil": "1"}).content, tmp_path)
    pen = pdf_text(client.get(url, {"pencil": "0"}).content, tmp_path)

    upp = check_document(pilot_in_play.document).upp
    assert re.search(rf"{upp} Cr[\d,]+ DEF", pen)
    assert f"{upp} Cr{pdf_sheet.PENCIL_BLANK} DEF" in pencil
    assert not re.search(r"Cr\d[\d,]* DEF", pencil)


@pytest.mark.django_db
@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize(("campaign_size", "asked", "expected"), [
    ("letter", "a4", "(A4)"), ("a4", "letter", "(letter)"), ("a4", None, "(A4)"),
])  # fmt: skip
def test_anyone_may_download_the_other_page_size_than_their_campaigns(
    client, tmp_path, campaign_size, asked, expected
):
    referee = UserFactory(username="referee")
    campaign = campaigns_services.create_campaign(referee=referee, name="Sizes")
    campaign.page_size = campaign_size
    campaign.save()
    player = UserFactory(username="player")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    character = builder_services.create_character(owner=player, document=docs.navy_pilot())
    campaigns_services.attach_character(character=character, campaign=campaign, by=player)
    query = {"size": asked} if asked else {}

    client.force_login(player)
    sheet = client.get(reverse("character_pdf", args=[character.pk]), query).content
    client.force_login(referee)
    party = client.get(reverse("campaign_pdf", args=[campaign.pk]), {"all": "1", **query}).content

    for pdf in (sheet, party):
        info = poppler_tool("pdfinfo", content=pdf, tmp_path=tmp_path)
        assert re.search(rf"^Page size:.*{re.escape(expected)}$", info, re.MULTILINE)

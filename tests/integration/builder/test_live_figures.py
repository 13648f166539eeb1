"""Live means everything: after any run of edits, each answered by the live preview as the page
applies it (the regions it sends, in place of those on the page), every part of the page shows
what a fresh page of the same character shows. The preview sends again only the figures the
edits can move; a figure it leaves out that did move is a stale figure on the player's screen."""

import re
from difflib import SequenceMatcher
from html.parser import HTMLParser

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from characters.builder import services as builder_services
from tests.factories import UserFactory, character_document

pytestmark = pytest.mark.django_db

_VOID = frozenset(
    "area base br col embed hr img input link meta param source track wbr".split()
)


class _Page(HTMLParser):
    """What a browser would hold of a builder page or a preview: the text of each element with
    an id (outside the elements with ids within it), and the builder form's fields as it would
    post them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: dict[str, str] = {}
        self.fields: list[tuple[str, str]] = []
        self._open: list[tuple[str, str | None, list[str]]] = []  # tag, id, text
        self._select: dict | None = None

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if tag == "input" and found.get("name") and found.get("type") != "submit":
            if found.get("type") not in ("checkbox", "radio") or "checked" in found:
                self.fields.append((found["name"], found.get("value") or ""))
        elif tag == "select" and found.get("name"):
            self._select = {"name": found["name"], "chosen": None, "first": None}
        elif tag == "option" and self._select is not None:
            value = found.get("value", "")
            if self._select["first"] is None:
                self._select["first"] = value
            if "selected" in found:
                self._select["chosen"] = value
        if tag not in _VOID:
            self._open.append((tag, found.get("id"), []))

    def handle_endtag(self, tag):
        if tag == "select" and self._select is not None:
            chosen = self._select["chosen"]
            value = chosen if chosen is not None else self._select["first"]
            if value is not None:
                self.fields.append((self._select["name"], value))
            self._select = None
        while self._open:
            open_tag, element_id, text = self._open.pop()
            joined = " ".join("".join(text).split())
            if element_id:
                self.texts[element_id] = joined
            if self._open:
                # An element with an id is a part of its own: its parent holds a mark for it,
                # so a part sent again by the preview is not also a change of every part around.
                inner = f"<#{element_id}>" if element_id else "".join(text)
                self._open[-1][2].append(f" {inner} ")
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self._open:
            self._open[-1][2].append(data)


def _read(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


# Parts of the page that say when and in which sitting it was drawn, not what it shows; and
# the rows' own controls, which stay as drawn while the player works in them (a flaw's control
# score box comes with the next page): a row's figures are parts of their own.
_NOT_FIGURES = re.compile(r"^(save-state|builder-status|saved-at|(skill|trait|item)-row-\d+$)")


def _differences(shown: dict[str, str], fresh: dict[str, str]) -> dict[str, list[str]]:
    """Per part that differs, the words that do: shown on the page -> on a fresh page."""
    found = {}
    for element in sorted(fresh.keys() & shown.keys()):
        if shown[element] == fresh[element] or _NOT_FIGURES.match(element):
            continue
        before, after = shown[element].split(), fresh[element].split()
        found[element] = [
            f"{' '.join(before[i1:i2])!r} -> {' '.join(after[j1:j2])!r}"
            for op, i1, i2, j1, j2 in SequenceMatcher(None, before, after).get_opcodes()
            if op != "equal"
        ]
    return found


ATTRIBUTES = ("STR", "DEX", "END", "INT", "PRE", "AWA", "EDU", "SOC", "EXP")
SERVICES = ("", "navy", "marines", "army", "scouts", "merchants", "other", "pirate", "noble")


def _base_document() -> dict:
    return character_document(
        name="Vessa Tor",
        homeworld="Regina",
        service="navy",
        terms=3,
        rank=2,
        attributes={
            "STR": 7, "DEX": 9, "END": 7, "INT": 8, "PRE": 7,
            "AWA": 7, "EDU": 9, "SOC": 7, "EXP": 8,
        },  # fmt: skip
        skills=[
            {"skill": "Pilot", "level": 2, "specialties": ["small craft"]},
            {"skill": "Gambling", "level": 1},
            {"skill": "Area Knowledge", "cascade": "Regina", "level": 1},
            {"skill": "Navigation", "level": 0},
            {"skill": "Streetwise", "level": 0},
        ],
        traits=[
            {"type": "PP", "level": "E", "frequency": "O", "name": "Combat experience"},
            {"type": "HF", "level": "I", "frequency": "S", "name": "Fined once"},
        ],
        equipment=[{"item": "Dagger", "quantity": 1}, {"item": "Autopistol", "quantity": 2}],
        mustering_out={"rolls": [3, 5]},
    )


def _edits() -> st.SearchStrategy[dict[str, str]]:
    """One thing a player changes in the form, by the names its inputs post."""
    levels = st.integers(min_value=0, max_value=4).map(str)
    return st.one_of(
        st.builds(lambda code, level: {code: str(level)},
                  st.sampled_from(ATTRIBUTES), st.integers(min_value=2, max_value=15)),
        st.builds(lambda row, level: {f"skill-{row}-level": level},
                  st.integers(min_value=0, max_value=4), levels),
        st.builds(lambda service: {"service": service}, st.sampled_from(SERVICES)),
        st.builds(lambda terms: {"terms": str(terms)}, st.integers(min_value=0, max_value=7)),
        st.builds(lambda rank: {"rank": str(rank)}, st.integers(min_value=0, max_value=6)),
        st.builds(lambda species: {"species": species}, st.sampled_from(("human", "vargr"))),
        st.builds(lambda world: {"homeworld": world}, st.sampled_from(("", "Regina", "Efate"))),
        st.builds(lambda kind: {"kind": kind}, st.sampled_from(("pc", "npc"))),
        st.builds(lambda budget: {"budget": str(budget)}, st.sampled_from((60, 100, 140))),
        st.builds(lambda row, quantity: {f"item-{row}-quantity": str(quantity)},
                  st.integers(min_value=0, max_value=1), st.integers(min_value=1, max_value=9)),
        st.builds(lambda row, level: {f"trait-{row}-level": level},
                  st.integers(min_value=0, max_value=1), st.sampled_from(("C", "E", "G"))),
        st.builds(lambda row, frequency: {f"trait-{row}-frequency": frequency},
                  st.integers(min_value=0, max_value=1), st.sampled_from(("R", "S", "O"))),
        st.builds(lambda row, kind: {f"trait-{row}-type": kind},
                  st.integers(min_value=0, max_value=1), st.sampled_from(("PP", "PF", "HP", "HF"))),
        st.builds(lambda strength: {"psi-strength": str(strength)},
                  st.integers(min_value=0, max_value=9)),
    )  # fmt: skip


def _posted(fields: list[tuple[str, str]]) -> dict[str, list[str]]:
    """The fields by name, as a form posts them (a row's specialty boxes share one)."""
    posted: dict[str, list[str]] = {}
    for name, value in fields:
        posted.setdefault(name, []).append(value)
    return posted


_player = iter(range(10**6))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=st.lists(_edits(), min_size=1, max_size=3))
def test_after_any_edits_every_figure_on_the_page_is_what_a_fresh_page_shows(client, edits):
    owner = UserFactory(username=f"player{next(_player)}")
    client.force_login(owner)
    character = builder_services.create_character(owner=owner, document=_base_document())
    edit_url = reverse("character_edit", args=[character.pk])
    preview_url = reverse("character_preview", args=[character.pk])
    page = _read(client.get(edit_url).content.decode())
    shown, fields = dict(page.texts), _posted(page.fields)
    for edit in edits:
        changed = {name for name, value in edit.items() if fields.get(name) not in (None, [value])}
        if not changed:
            continue  # no change, or not an input this page has (a row it lacks)
        fields |= {name: [edit[name]] for name in changed}
        preview = client.post(
            preview_url, {**fields, "edited": " ".join(sorted(changed))}, HTTP_HX_REQUEST="true"
        )
        shown |= _read(preview.content.decode()).texts
        # The page stores the edits by itself; a page drawn afresh shows what is stored.
        client.post(edit_url, {**fields, "action": "save"})
        fresh = _read(client.get(edit_url).content.decode())
        assert _differences(shown, fresh.texts) == {}, edits
        shown, fields = dict(fresh.texts), _posted(fresh.fields)

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
from tests.ci import examples
from tests.factories import UserFactory, character_document

pytestmark = pytest.mark.django_db

# Elements that have no end tag.
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param"}
    | {"source", "track", "wbr"}
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
            if "disabled" not in found and (
                found.get("type") not in ("checkbox", "radio") or "checked" in found
            ):
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
# the rows' own controls, which stay as drawn while the player works in them (the script, not a
# preview, shows a flaw's control-score box): a row's figures are parts of their own.
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
        attributes=dict(zip(ATTRIBUTES, (7, 9, 7, 8, 7, 7, 9, 7, 8), strict=True)),
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


def _set(name: str, values: st.SearchStrategy) -> st.SearchStrategy[dict]:
    return values.map(lambda value: {name: value})


def _set_in_row(template: str, rows: int, values: st.SearchStrategy) -> st.SearchStrategy[dict]:
    """``template`` names the input of a row (``skill-{}-level``) among the first ``rows``."""
    return st.tuples(st.integers(min_value=0, max_value=rows - 1), values).map(
        lambda chosen: {template.format(chosen[0]): chosen[1]}
    )


def _press(template: str, rows: int) -> st.SearchStrategy[dict]:
    return st.integers(min_value=0, max_value=rows - 1).map(
        lambda row: {"action": template.format(row)}
    )


def _numbers(lowest: int, highest: int) -> st.SearchStrategy[str]:
    return st.integers(min_value=lowest, max_value=highest).map(str)


def _ticked() -> st.SearchStrategy[str | None]:
    return st.sampled_from(("on", None))


def _edits() -> st.SearchStrategy[dict]:
    """One thing a player does in the form: a change, by the names its inputs post (None: a
    box unticked; a list: a row's specialty boxes), or a row's button pressed. (Add an item
    brings an empty row, which is stored once an item is chosen in it.)"""
    specialties = st.sampled_from(("small craft", "fighters", "starships and spaceships"))
    return st.one_of(
        st.sampled_from(ATTRIBUTES).flatmap(lambda code: _set(code, _numbers(2, 15))),
        _set_in_row("skill-{}-level", 5, _numbers(0, 4)),
        _set("service", st.sampled_from(SERVICES)),
        _set("terms", _numbers(0, 7)),
        _set("rank", _numbers(0, 6)),
        _set("species", st.sampled_from(("human", "vargr"))),
        _set("homeworld", st.sampled_from(("", "Regina", "Efate"))),
        _set("kind", st.sampled_from(("pc", "npc"))),
        _set("budget", st.sampled_from(("60", "100", "140"))),
        _set("age", st.sampled_from(("", "18", "34", "60"))),
        _set("one_trait_per_term", _ticked()),
        _set_in_row("item-{}-quantity", 2, _numbers(1, 9)),
        _set_in_row("trait-{}-level", 2, st.sampled_from(("C", "E", "G"))),
        _set_in_row("trait-{}-frequency", 2, st.sampled_from(("R", "S", "O"))),
        _set_in_row("trait-{}-type", 2, st.sampled_from(("PP", "PF", "HP", "HF"))),
        _set("psi-strength", _numbers(0, 9)),
        _set("psi-trained", _ticked()),
        _set("talent-Telepathy", _numbers(0, 3)),
        _set("talent-Awareness", _numbers(0, 3)),
        st.sampled_from(("native_language", "native_culture", "name")).flatmap(
            lambda field: _set(field, st.sampled_from(("", "Anglic", "Vilani", "Gvegh")))
        ),
        _set("skill-2-cascade", st.sampled_from(("Regina", "Efate", ""))),
        _set("skill-0-specialties", st.lists(specialties, unique=True)),
        _press("remove_skill:{}", 5),
        _press("remove_trait:{}", 2),
        _press("remove_item:{}", 2),
        st.sampled_from(("Gambling", "Medical", "Area Knowledge", "Language", "Pilot")).map(
            lambda name: {"action": "add_skill", "new-skill": name}
        ),
        st.sampled_from(("[PP-C-S 2]", "[HF-H-R -2]", "[PF DEF-1 -5]")).map(
            lambda notation: {"action": "add_trait_notation", "trait-notation": notation}
        ),
    )


def _posted(fields: list[tuple[str, str]]) -> dict[str, list[str]]:
    """The fields by name, as a form posts them (a row's specialty boxes share one)."""
    posted: dict[str, list[str]] = {}
    for name, value in fields:
        posted.setdefault(name, []).append(value)
    return posted


_ROWS_OF_ACTION = {
    "add_skill": "skill-",
    "remove_skill": "skill-",
    "add_trait_notation": "trait-",
    "remove_trait": "trait-",
    "remove_item": "item-",
}
_player = iter(range(10**6))


@settings(
    max_examples=examples(50),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
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
        edit = dict(edit)  # the strategy's own (st.just) must stay as it is
        pressed = {name: edit.pop(name, None) for name in ("action", "new-skill", "trait-notation")}
        changed = set()
        for name, value in edit.items():
            values = [] if value is None else value if isinstance(value, list) else [value]
            known = name in fields or name.startswith(("psi-", "talent-", "one_trait", "skill-0-s"))
            if known and fields.get(name, []) != values:
                changed.add(name)
                fields[name] = values
        if not (changed or pressed["action"]):
            continue  # no change, or not an input this page has (a row it lacks)
        posted = {**fields, **{k: v for k, v in pressed.items() if v}}
        posted["edited"] = " ".join(sorted(changed))
        answer = _read(client.post(preview_url, posted, HTTP_HX_REQUEST="true").content.decode())
        shown |= answer.texts
        if pressed["action"]:
            # The section comes back whole: its rows' inputs are those it brings.
            rows = _ROWS_OF_ACTION[pressed["action"].split(":")[0]]
            fields = {name: v for name, v in fields.items() if not name.startswith(rows)}
            fields |= _posted(answer.fields)
        # The page stores the edits by itself; a page drawn afresh shows what is stored.
        saved = client.post(edit_url, {**fields, "action": "save"})
        fresh = _read(client.get(edit_url).content.decode())
        if saved.status_code == 302:
            assert _differences(shown, fresh.texts) == {}, edits
        else:  # a field it could not read (PSI training without a strength): the page says so
            assert saved.status_code == 400, saved.status_code
        shown, fields = dict(fresh.texts), _posted(fresh.fields)

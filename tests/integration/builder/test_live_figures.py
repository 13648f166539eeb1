"""Live means everything: after any run of edits, each saved as the page saves it and answered
with the figures it sends (in place of those on the page), every part of the page shows what a
fresh page of the same character shows. A figure the answer leaves out that did move is a stale
figure on the player's screen. Rows are added and removed as the page's script does: in the
form, by a key of their own, with the fields the typed name stands for."""

import json
import re
from difflib import SequenceMatcher
from html.parser import HTMLParser

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from characters.builder import services as builder_services
from characters.builder.buttons import resolve_skill
from rules import parse_trait
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
        self.rows: dict[str, list[str]] = {"skill": [], "trait": [], "item": []}  # keys, in order
        self._template = 0
        self.fields: list[tuple[str, str]] = []
        self._open: list[tuple[str, str | None, list[str]]] = []  # tag, id, text
        self._select: dict | None = None

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if tag == "template":
            self._template += 1
        if self._template:
            return  # what the page's script makes rows from: no row until it does
        row = _ROW.match(found.get("id") or "")
        if row:
            self.rows[row["kind"]].append(row["key"])
        if tag == "input" and found.get("name") and found.get("type") != "submit":
            if "disabled" not in found and (
                found.get("type") not in ("checkbox", "radio") or "checked" in found
            ):
                default = "on" if found.get("type") in ("checkbox", "radio") else ""
                self.fields.append((found["name"], found.get("value") or default))
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
        if tag == "template":
            self._template -= 1
            return
        if self._template:
            return
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
        if self._open and not self._template:
            self._open[-1][2].append(data)


_ROW = re.compile(r"^(?P<kind>skill|trait|item)-row-(?P<key>[a-z0-9]+)$")
_IN_A_ROW = re.compile(
    r"^(?:id_)?(?P<kind>skill|trait|item)-(?:row-)?(?P<key>[a-z0-9]+)(?P<rest>-.*)?$"
)


def _read(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


def _by_place(texts: dict[str, str], rows: dict[str, list[str]]) -> dict[str, str]:
    """The texts with each row's part named by the row's place, not its key: a fresh page gives
    its rows keys of its own."""
    placed = {}
    for element, text in texts.items():
        part = _IN_A_ROW.match(element)
        if part and part["key"] in rows[part["kind"]]:
            place = rows[part["kind"]].index(part["key"])
            element = element.replace(f"-{part['key']}", f"-#{place}", 1)
        placed[element] = text
    return placed


# Parts of the page that say when and in which sitting it was drawn, not what it shows; and
# the rows, which the page's script adds and removes, with their own controls, which stay as
# drawn while the player works in them: a row's figures are parts of their own.
_NOT_FIGURES = re.compile(
    r"^(save-state|builder-status|saved-at|(skill|trait|item)-row-#\d+$"
    r"|section-(skills|traits|equipment)$)"
)


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


def _pressing(template: str, rows: int) -> st.SearchStrategy[dict]:
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
        _pressing("remove_skill:{}", 5),
        _pressing("remove_trait:{}", 2),
        _pressing("remove_item:{}", 2),
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


def _press(fields: dict, rows: dict[str, list[str]], action: str, typed: str | None) -> None:
    """A row's button, as the page's script presses it: the row's fields leave the form, or a
    new row's fields join it (in the order a browser posts them: the new row's last)."""
    verb, _, place = action.partition(":")
    kind = {"add_skill": "skill", "add_trait_notation": "trait"}.get(verb, verb[7:])
    if verb.startswith("remove_"):
        if int(place) >= len(rows[kind]):
            return
        key = rows[kind].pop(int(place))
        for name in [name for name in fields if name.startswith(f"{kind}-{key}-")]:
            del fields[name]
        return
    key = f"n{next(_player)}"
    if kind == "skill":
        row = resolve_skill(typed or "")
        added = {"skill": [row.skill], "level": [row.level], "cascade": [row.cascade]}
        added["specialties"] = row.specialties
    else:
        trait = parse_trait(typed or "")
        added = {"type": [trait.type], "name": [""], "level": [trait.level or ""]}
        added |= {"frequency": [trait.frequency or ""]}
        added |= {f"derived-{code}": [str(amount)] for code, amount in trait.derived}
    fields |= {f"{kind}-{key}-{name}": values for name, values in added.items() if values}
    rows[kind].append(key)


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
    page = _read(client.get(edit_url).content.decode())
    rows = page.rows
    shown, fields = dict(page.texts), _posted(page.fields)
    for stamp, edit in enumerate(edits, start=1):
        edit = dict(edit)  # the strategy's own (st.just) must stay as it is
        action = edit.pop("action", None)
        typed = edit.pop("new-skill", None) or edit.pop("trait-notation", None)
        changed = False
        for name, value in edit.items():
            values = [] if value is None else value if isinstance(value, list) else [value]
            known = name in fields or name.startswith(("psi-", "talent-", "one_trait", "skill-"))
            name = _named_by_key(name, rows)
            if name and known and fields.get(name, []) != values:
                changed = True
                fields[name] = values
        if action:
            _press(fields, rows, action, typed)
        if not (changed or action):
            continue  # no change, or not an input this page has (a row it lacks)
        fields["edit_stamp"] = [str(stamp)]
        answer = client.post(edit_url, fields, HTTP_HX_REQUEST="true")
        saved = json.loads(answer["HX-Trigger-After-Settle"])["builder:saved"]
        assert saved["state"] in ("saved", "partial"), saved
        shown |= _read(answer.content.decode()).texts
        # The page stored the edits by itself; a page drawn afresh shows what is stored (all
        # of it but a field the page could not read, which the page names and a fresh page
        # cannot know of).
        fresh = _read(client.get(edit_url).content.decode())
        differences = _differences(_by_place(shown, rows), _by_place(fresh.texts, fresh.rows))
        assert saved["state"] == "partial" or differences == {}, edits
        rows = fresh.rows
        shown, fields = dict(fresh.texts), _posted(fresh.fields)


def _named_by_key(name: str, rows: dict[str, list[str]]) -> str | None:
    """A row's input named by the row's place (``skill-2-level``), by its key; None for a row
    the page does not have."""
    part = _IN_A_ROW.match(name)
    if not part or not part["rest"]:
        return name
    place = int(part["key"])
    if place >= len(rows[part["kind"]]):
        return None
    return f"{part['kind']}-{rows[part['kind']][place]}{part['rest']}"

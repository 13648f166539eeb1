"""Model-based journeys through the builder: a seeded random player, checked against a plain
model of the document after every step and against the export at the end.

What a player does is drawn at random (typing a skill and pressing Enter, picking one from the
list, cascades and specialties on any row, levels, traits and items added and removed, a trait's
type changed in place and its control score ticked or unticked, Enter in any field, reloading,
going to the sheet and back, a second tab), so the journey finds what a scripted path never
takes. A few seeds run in CI; ``FFA_JOURNEY_SEEDS=200`` runs many locally (and
``FFA_JOURNEY_FIRST_SEED`` picks where to start).
"""

import contextlib
import os
import random
import re
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

import rules
from rules.model import control_by_default
from tests.browser.pages import log_in, start_building
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

FIRST_SEED = int(os.environ.get("FFA_JOURNEY_FIRST_SEED", "1"))
SEEDS = range(FIRST_SEED, FIRST_SEED + int(os.environ.get("FFA_JOURNEY_SEEDS", "3")))
STEPS = int(os.environ.get("FFA_JOURNEY_STEPS", "24"))
PHONE = {"width": 390, "height": 800}
DESKTOP = {"width": 1280, "height": 800}
SAVED = "All changes saved"


@dataclass
class Skill:
    name: str
    level: int = 1
    specialties: set[str] = field(default_factory=set)
    cascade: str | None = None


FOCUSED_OUT_OF_VIEW = """() => {
    const focused = document.activeElement;
    if (!focused || !focused.closest("#builder") || focused.type === "hidden") return null;
    const box = focused.getBoundingClientRect();
    return box.bottom > 0 && box.top < innerHeight ? null : focused.name || focused.id;
}"""


@dataclass
class Trait:
    type: str
    level: str
    frequency: str
    control: bool


@dataclass
class Model:
    """What the player has put in the builder: what the stored document must hold."""

    attributes: dict[str, int]
    skills: list[Skill] = field(default_factory=list)
    traits: list[Trait] = field(default_factory=list)
    items: list[tuple[str, int]] = field(default_factory=list)  # item name, quantity


class Journey:
    def __init__(self, page, seed: int) -> None:
        self.page = page
        self.random = random.Random(seed)
        self.seed = seed
        cat = rules.catalog()
        self.cat = cat
        self.model = Model(attributes=dict.fromkeys(cat.attribute_order, 7))
        self.plain_items = [
            item for item in cat.equipment if item.cost is not None and item.table == "accessories"
        ][:12]
        self.log: list[str] = []

    # -- steps ---------------------------------------------------------------------------------

    def type_attribute(self) -> None:
        code = self.random.choice(self.cat.attribute_order)
        level = self.random.randint(3, 12)
        text = self.cat.to_hex(level) if self.random.random() < 0.3 else str(level)
        self.page.fill(f"input[name={code}]", text)
        self.model.attributes[code] = level

    def step_attribute(self) -> None:
        code = self.random.choice(self.cat.attribute_order)
        current = self.model.attributes[code]
        delta = self.random.choice((-1, 1)) if 2 < current < 12 else (1 if current <= 2 else -1)
        name = f"{'Raise' if delta > 0 else 'Lower'} {code}"
        self.page.get_by_role("button", name=name, exact=True).click()
        self.model.attributes[code] = current + delta

    def _new_skill(self) -> str | None:
        taken = {skill.name for skill in self.model.skills}
        choices = [s.name for s in self.cat.skills if s.name not in taken and not s.is_cascade]
        return self.random.choice(choices) if choices else None

    def add_skill_by_typing(self) -> None:
        name = self._new_skill()
        if name is None:
            return
        box = self.page.locator("[data-add=skill]")
        box.fill(name.lower() if self.random.random() < 0.3 else name)
        box.press("Enter")
        self.model.skills.append(Skill(name))
        expect(self.page.locator("[data-skill-row]")).to_have_count(len(self.model.skills))

    def add_skills_in_a_hurry(self) -> None:
        """Two or three names, each typed and entered at once, on a network slow enough that
        the page's save of the first is still on its way when the last is entered: each row
        comes at once, and the saves hold them all."""
        held: list = []

        def hold_the_first_save(route) -> None:
            request = route.request
            if held or request.method != "POST" or "hx-request" not in request.headers:
                route.continue_()
            else:
                held.append(route)

        self.page.route("**/edit/", hold_the_first_save)
        box = self.page.locator("[data-add=skill]")
        for _ in range(self.random.randint(2, 3)):
            name = self._new_skill()
            if name is None:
                break
            box.fill(name)
            box.press("Enter")
            self.model.skills.append(Skill(name))
            expect(self.page.locator("[data-skill-row]")).to_have_count(len(self.model.skills))
        self.page.unroute("**/edit/")
        for route in held:
            with contextlib.suppress(PlaywrightError):  # replaced by a newer save meanwhile
                route.continue_()
        expect(self.page.locator("[data-skill-row]")).to_have_count(len(self.model.skills))

    def add_skill_from_the_list(self) -> None:
        name = self._new_skill()
        if name is None:
            return
        catalog = self.page.locator("details.catalog")
        if catalog.get_attribute("open") is None:
            catalog.locator("summary").click()
        catalog.get_by_role("button", name=f"Add {name}:").click()
        self.model.skills.append(Skill(name))
        expect(self.page.locator("[data-skill-row]")).to_have_count(len(self.model.skills))

    def add_cascade_skill(self) -> None:
        taken = {skill.name for skill in self.model.skills}
        choices = [s for s in self.cat.skills if s.is_cascade and s.name not in taken]
        if not choices:
            return
        definition = self.random.choice(choices)
        box = self.page.locator("[data-add=skill]")
        box.fill(definition.name)
        box.press("Enter")
        self.model.skills.append(Skill(definition.name))
        expect(self.page.locator("[data-skill-row]")).to_have_count(len(self.model.skills))
        self.choose_cascade(len(self.model.skills) - 1)

    def choose_cascade(self, index: int | None = None) -> None:
        """A cascade for a cascade skill's row: picked from its list, or typed for an open one."""
        rows = [
            i for i, s in enumerate(self.model.skills) if self.cat.find_skill(s.name).is_cascade
        ]
        if index is None and not rows:
            return
        index = self.random.choice(rows) if index is None else index
        skill = self.model.skills[index]
        definition = self.cat.find_skill(skill.name)
        control = self.page.locator("[data-skill-row]").nth(index).locator("[name$=-cascade]")
        if definition.open:
            skill.cascade = self.random.choice([*definition.suggested, "Zhodani Consulate"])
            control.fill(skill.cascade)
        else:
            skill.cascade = self.random.choice(definition.cascades)
            control.select_option(skill.cascade)

    def set_skill_level(self) -> None:
        if not self.model.skills:
            return
        index = self.random.randrange(len(self.model.skills))
        level = self.random.randint(0, 3)
        self.page.locator("[data-skill-row]").nth(index).locator("[data-field=level]").fill(
            str(level)
        )
        self.model.skills[index].level = level

    def tick_specialty(self) -> None:
        rows = [i for i, s in enumerate(self.model.skills) if self.cat.find_skill(s.name).is_spec]
        if not rows:
            return
        index = self.random.choice(rows)
        skill = self.model.skills[index]
        specialty = self.random.choice(self.cat.find_skill(skill.name).specialties).name
        box = (
            self.page.locator("[data-skill-row]")
            .nth(index)
            .locator(f'[data-specialty="{specialty}"]')
        )
        if specialty in skill.specialties:
            box.uncheck()
            skill.specialties.discard(specialty)
        else:
            box.check()
            skill.specialties.add(specialty)

    def remove_skill(self) -> None:
        if not self.model.skills:
            return
        index = self.random.randrange(len(self.model.skills))
        row = self.page.locator("[data-skill-row]").nth(index)
        row.locator("[data-action=remove]").click()
        del self.model.skills[index]
        expect(self.page.locator("[data-skill-row]")).to_have_count(len(self.model.skills))

    def add_trait(self) -> None:
        trait_type = self.random.choice(("PP", "PF"))
        levels = self.cat.perk_levels if trait_type == "PP" else self.cat.flaw_levels
        level = self.random.choice(list(levels))
        frequency = self.random.choice(list(self.cat.frequencies))
        self.page.locator(f'button[value="add_trait:{trait_type}:{level}:{frequency}"]').click()
        self.model.traits.append(
            Trait(trait_type, level, frequency, control_by_default(trait_type))
        )
        expect(self.page.locator("[data-trait-row]")).to_have_count(len(self.model.traits))

    def change_trait_type(self) -> None:
        """A type chosen in place: a flaw's row shows its control-score box, as the new type
        has it by default when the row was not a flaw's; another flaw's keeps the box as is."""
        if not self.model.traits:
            return
        index = self.random.randrange(len(self.model.traits))
        trait = self.model.traits[index]
        trait_type = self.random.choice([*self.cat.perk_types, *self.cat.flaw_types])
        row = self.page.locator("[data-trait-row]").nth(index)
        row.locator("select[name$='-type']").select_option(trait_type)
        if trait_type not in self.cat.flaw_types or trait.type not in self.cat.flaw_types:
            trait.control = control_by_default(trait_type)
        trait.type = trait_type

    def tick_control_score(self) -> None:
        flaws = [i for i, t in enumerate(self.model.traits) if t.type in self.cat.flaw_types]
        if not flaws:
            return
        index = self.random.choice(flaws)
        row = self.page.locator("[data-trait-row]").nth(index)
        row.locator("input[name$='-control']").click()
        self.model.traits[index].control = not self.model.traits[index].control

    def remove_trait(self) -> None:
        if not self.model.traits:
            return
        index = self.random.randrange(len(self.model.traits))
        self.page.locator("[data-trait-row]").nth(index).locator("[data-action=remove]").click()
        del self.model.traits[index]
        expect(self.page.locator("[data-trait-row]")).to_have_count(len(self.model.traits))

    def add_item(self) -> None:
        item = self.random.choice(self.plain_items)
        quantity = self.random.randint(1, 3)
        self.page.get_by_role("button", name="Add an item").click()
        expect(self.page.locator("[data-item-row]")).to_have_count(len(self.model.items) + 1)
        row = self.page.locator("[data-item-row]").last
        row.locator("select").select_option(f"{item.name}|{'' if item.tl is None else item.tl}")
        row.locator("input[type=number]").fill(str(quantity))
        self.model.items.append((item.name, quantity))
        expect(row).to_have_attribute("data-item-row", item.name)

    def remove_item(self) -> None:
        if not self.model.items:
            return
        index = self.random.randrange(len(self.model.items))
        self.page.locator("[data-item-row]").nth(index).locator("[data-action=remove]").click()
        del self.model.items[index]
        expect(self.page.locator("[data-item-row]")).to_have_count(len(self.model.items))

    def press_enter_somewhere(self) -> None:
        fields = self.page.locator(
            "#builder input:visible:not([type=hidden]):not([type=checkbox]),"
            " #builder select:visible"
        )
        fields.nth(self.random.randrange(fields.count())).press("Enter")

    def reload(self) -> None:
        self.wait_until_saved()
        self.page.reload()
        self.page.wait_for_load_state("load")

    def to_the_sheet_and_back(self) -> None:
        self.wait_until_saved()
        self.page.get_by_role("link", name="Sheet", exact=True).click()
        expect(self.page).to_have_url(re.compile(r"/characters/\d+/$"))
        self.page.go_back()
        self.page.wait_for_load_state("load")

    def second_tab(self) -> None:
        self.wait_until_saved()
        other = self.page.context.new_page()
        other.goto(self.page.url)
        other.wait_for_load_state("load")
        self.check_page(other)
        other.close()

    STEPS = (
        (type_attribute, 3),
        (step_attribute, 2),
        (add_skill_by_typing, 3),
        (add_skills_in_a_hurry, 1),
        (add_skill_from_the_list, 2),
        (add_cascade_skill, 1),
        (choose_cascade, 1),
        (set_skill_level, 3),
        (tick_specialty, 3),
        (remove_skill, 1),
        (add_trait, 2),
        (remove_trait, 1),
        (change_trait_type, 1),
        (tick_control_score, 1),
        (add_item, 2),
        (remove_item, 1),
        (press_enter_somewhere, 2),
        (reload, 1),
        (to_the_sheet_and_back, 1),
        (second_tab, 1),
    )

    def step(self) -> None:
        steps, weights = zip(*self.STEPS, strict=True)
        chosen = self.random.choices(steps, weights)[0]
        self.log.append(chosen.__name__)
        chosen(self)

    # -- checks --------------------------------------------------------------------------------

    def wait_until_saved(self) -> None:
        expect(self.page.locator("[data-save-state]")).to_have_text(SAVED, timeout=8000)

    def check_page(self, page=None) -> None:
        page = page or self.page
        model = self.model
        # Where the player works next is on the screen, not under the sticky bar or off it.
        focused = page.evaluate(FOCUSED_OUT_OF_VIEW)
        assert focused is None, f"{focused} has focus out of view"
        wider = page.evaluate("document.documentElement.scrollWidth - innerWidth")
        assert wider <= 0, f"the page scrolls sideways by {wider} px"
        for code, level in model.attributes.items():
            expect(page.locator(f'[data-hex="{code}"]')).to_have_text(self.cat.to_hex(level))
        rows = page.locator("[data-skill-row]")
        expect(rows).to_have_count(len(model.skills))
        for index, skill in enumerate(model.skills):
            row = rows.nth(index)
            expect(row).to_have_attribute("data-skill", skill.name)
            if skill.cascade:
                expect(row).to_have_attribute("data-cascade", skill.cascade)
            expect(row.locator("[data-field=level]")).to_have_value(str(skill.level))
            ticked = row.locator("[data-specialty]:checked")
            expect(ticked).to_have_count(len(skill.specialties))
        rows = page.locator("[data-trait-row]")
        expect(rows).to_have_count(len(model.traits))
        for index, trait in enumerate(model.traits):
            row = rows.nth(index)
            expect(row.locator("select[name$='-type']")).to_have_value(trait.type)
            box = row.locator("input[name$='-control']")
            if trait.type not in self.cat.flaw_types:
                expect(box).to_be_hidden()
            else:
                expect(box).to_be_checked(checked=trait.control)
        expect(page.locator("[data-item-row]")).to_have_count(len(model.items))
        for index, (name, _quantity) in enumerate(model.items):
            expect(page.locator("[data-item-row]").nth(index)).to_have_attribute(
                "data-item-row", name
            )

    def check_export(self) -> None:
        self.wait_until_saved()
        export_url = self.page.url.replace("/edit/", "/export.json")
        document = self.page.request.get(export_url).json()
        model = self.model
        assert document["attributes"] == model.attributes
        assert [
            (s["skill"], s.get("cascade"), s["level"], set(s.get("specialties", [])))
            for s in document["skills"]
        ] == [(s.name, s.cascade, s.level, s.specialties) for s in model.skills]
        assert [
            Trait(
                t["type"],
                t["level"],
                t["frequency"],
                t.get("control", control_by_default(t["type"])),
            )
            for t in document["traits"]
        ] == model.traits
        assert [(e["item"], e["quantity"]) for e in document["equipment"]] == model.items


@pytest.mark.parametrize("seed", SEEDS)
def test_a_random_player_loses_nothing_and_misplaces_nothing(page, seed):
    # Odd seeds play on a phone, where rows are cards and a redrawn section moves the page most.
    page.set_viewport_size(PHONE if seed % 2 else DESKTOP)
    UserFactory(username="player1")
    log_in(page, "player1")
    start_building(page, f"Journey {seed}")
    journey = Journey(page, seed)

    for _ in range(STEPS):
        try:
            journey.step()
            journey.check_page()
        except AssertionError as failure:
            raise AssertionError(f"seed {seed}, after {journey.log}: {failure}") from failure
    try:
        journey.check_export()
    except AssertionError as failure:
        raise AssertionError(f"seed {seed}, after {journey.log}: {failure}") from failure

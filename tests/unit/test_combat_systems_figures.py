"""The FFA character and catalog in T4 and 2D6: data/systems.json is what the formulas give
today, its rows are the ones worked out by hand, and a sheet carries over the FFA figures."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rules.combat.conversion import build_figures, figures_text
from rules.combat.figures import armor_figures, weapon_figures
from rules.combat.reading import weapon as catalog_weapon
from rules.combat.tables import FIGURES_FILE

from .systems_builders import sheet


def test_systems_json_is_what_the_formulas_give_from_the_catalog_today():
    # After a change to the catalog or a formula: python -m rules.combat.conversion
    assert FIGURES_FILE.read_text(encoding="utf-8") == figures_text(build_figures())


def test_the_file_holds_every_catalog_weapon_and_armor():
    figures = json.loads(FIGURES_FILE.read_text(encoding="utf-8"))
    assert len(figures["weapons"]) == 53
    assert "Hands" in figures["weapons"]
    assert "Chameleon surface (TL 12)" not in figures["armor"]  # an add-on, not armor


def figures_of(name, tl=None):
    return weapon_figures(catalog_weapon(name, "weapon", tl))


@pytest.mark.parametrize(
    ("name", "tl", "dice", "aimed", "bulk", "autofire", "profile", "auto", "recoil"),
    [
        ("Short bow", None, 2, 2, 0, {}, "Rifle", None, 0),  # ⌈6 ÷ 3⌉; 800 mm
        ("Spear (thrown)", None, 3, 0, 3, {}, "Thrown", None, 0),  # ⌈7 ÷ 3⌉; 3000 mm
        ("Carbine", None, 3, 2, 0, {}, "Rifle", None, -1),  # STRmin 2: STR 4 (DV 2) is DM -1
        ("Shotgun", None, 4, 1, 1, {}, "Shotgun", None, 0),  # 2D doubled by SH
        ("Automatic rifle", None, 3, 3, 1, {4: 2}, "Rifle", 4, 0),
        ("Accelerator rifle", None, 2, 1, 0, {3: 1}, "Assault Weapon", 3, -1),
        ("Gauss pistol", None, 3, 1, 0, {}, "Pistol", None, 0),  # RoF 1:4 but no AF
        ("Gauss rifle", None, 4, 4, 0, {4: 2, 10: 3}, "Rifle", 4, 0),
        ("Laser rifle", 9, 5, 4, 1, {}, "Rifle", None, -1),
        ("PGMP-12", None, 10, 3, 0, {}, "Rifle", None, 1),  # STRmin 5: STR 10 is DM +1
        ("FGMP-15", None, 13, 4, 0, {}, "Rifle", None, -2),  # STRmin 1: STR 1 is DM -2
    ],
)
def test_ranged_weapons_in_both_systems(
    name, tl, dice, aimed, bulk, autofire, profile, auto, recoil
):
    found = figures_of(name, tl)
    assert found.dice == dice
    assert (found.t4.aimed_dm, found.t4.bulk, dict(found.t4.autofire)) == (aimed, bulk, autofire)
    assert (found.twod6.profile, found.twod6.auto, found.twod6.recoil) == (profile, auto, recoil)


@pytest.mark.parametrize(
    ("name", "dice", "weak", "bulk", "reach", "profile", "heft", "acc"),
    [
        ("Hands", 1, -2, 0, "short", "Close Quarters", -2, 0),
        ("Feet", 1, -2, 0, None, "Close Quarters", -2, 0),
        ("Teeth", 2, -2, 0, "short", "Close Quarters", -2, 0),  # 2 + ⌊2 ÷ 3⌋
        ("Horns", 3, -2, 0, "short", "Close Quarters", -2, -2),
        ("Hand axe", 3, -2, 0, None, "Close Quarters", 0, 0),  # 2 + ⌊4 ÷ 3⌋; reading T4-11
        ("Spear", 2, -3, 3, "long", "Extended Reach", 0, 0),
        ("Staff/cudgel", 2, -1, 1, None, "Close Quarters", -1, 0),  # the chart's Cudgel
        ("Battleaxe", 4, -4, 1, None, "Close Quarters", 1, -1),
        ("Pike", 2, -3, 4, "long", "Extended Reach", 0, -1),
        ("Blade", 2, -2, 0, "short", "Close Quarters", -1, 0),  # the chart's Short Blade
        ("Cutlass", 2, -4, 0, None, "Close Quarters", 0, 0),
    ],
)
def test_melee_weapons_in_both_systems(name, dice, weak, bulk, reach, profile, heft, acc):
    found = figures_of(name)
    assert (found.dice, found.t4.weak_blow, found.t4.bulk, found.t4.reach) == (
        dice,
        weak,
        bulk,
        reach,
    )
    assert (found.twod6.profile, found.twod6.recoil, found.acc_dm) == (profile, heft, acc)


@pytest.mark.parametrize(
    ("label", "t4", "twod6", "rigid"),
    [
        # blunt, plain, AP, LZ, XR: FFA AV after the notes, then T4 ⌊(AV + 3) ÷ 6⌋, 2D6 ⌊AV ÷ 3⌋
        ("Jack (TL 1)", [0, 1, 0, 0, 0], [0, 1, 0, 0, 0], False),
        ("Helmet (TL 5)", [5, 5, 3, 3, 1], [10, 10, 5, 5, 2], True),
        ("Flak jacket (TL 6)", [1, 2, 1, 1, 0], [1, 3, 1, 1, 0], False),
        ("Ablat (TL 9)", [2, 2, 1, 5, 5], [4, 4, 2, 9, 9], False),
        ("Reflec (TL 10)", [3, 3, 1, 5, 5], [5, 5, 2, 10, 10], False),
        ("Combat armor (TL 11)", [6, 6, 3, 3, 1], [11, 11, 5, 5, 2], True),
        ("Battle dress (TL 14)", [7, 7, 4, 4, 2], [14, 14, 7, 7, 3], True),
        ("Vacc suit (TL 13)", [4, 4, 2, 2, 1], [7, 7, 3, 3, 1], False),
        ("Vacc suit (TL 14)", [1, 3, 1, 1, 1], [2, 5, 2, 2, 1], False),
    ],
)
def test_armor_against_each_kind_of_attack(label, t4, twod6, rigid):
    found = armor_figures(label)
    classes = ("blunt", "plain", "AP", "LZ", "XR")
    assert [found.t4_av[c] for c in classes] == t4
    assert [found.armour[c] for c in classes] == twod6
    assert found.rigid == rigid


def test_the_upp_is_the_six_classic_characteristics_in_hex():
    mara = sheet(attributes={"STR": 6, "DEX": "B", "END": 7, "INT": 9, "EDU": "A", "SOC": 8})
    assert mara.upp == "6B79A8"


def test_a_vargr_fights_with_its_package_levels__minus_2_str_plus_2_dex_minus_2_end():
    vargr = sheet(species="vargr", attributes={"STR": 8, "DEX": 9, "END": 8})
    assert (vargr.levels["STR"], vargr.levels["DEX"], vargr.levels["END"]) == (6, 11, 6)


def test_derived_traits_ini_and_def_carry_over():
    quick = sheet(traits=[{"type": "PP", "name": "Quick off the mark", "derived": {"INI": 1}}])
    assert quick.ini_dm == 1


def test_the_armor_worn_is_the_best_body_armor_with_reflec_under_it_and_a_helmet():
    carrying = [{"item": "Combat armor", "tl": 11}, "Flak jacket", "Reflec", "Helmet"]
    worn = sheet(carrying=carrying)
    assert [piece.label for piece in worn.armor] == [
        "Combat armor (TL 11)",
        "Reflec (TL 10)",
        "Helmet (TL 5)",
    ]
    assert worn.armored_hands


def test_a_psionic_has_psi_for_head_hits_and_others_have_none():
    assert sheet(psionics={"strength": 5}).levels.get("PSI") == 5
    assert "PSI" not in sheet().levels


ROOT = Path(__file__).resolve().parents[2]


def test_the_other_systems_import_nothing_from_django():
    probe = (
        "import sys, rules.combat.command, rules.combat.t4.round, rules.combat.twod6.initiative; "
        "print(sorted(m for m in sys.modules if m.startswith('django')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert result.stdout.strip() == "[]"


READING = r"(?:T4|2D|X)-\d+"


def test_every_reading_of_the_docs_is_cited_from_the_code_and_every_citation_is_a_reading():
    docs = "".join((ROOT / "docs" / name).read_text() for name in ("combat-t4.md", "combat-2d6.md"))
    numbered = set(re.findall(rf"^\*\*({READING})\.", docs, flags=re.MULTILINE))
    code = "".join(path.read_text() for path in (ROOT / "rules" / "combat").rglob("*.py"))
    cited = set(re.findall(rf"\b{READING}\b", code))
    assert numbered - cited == set()  # a reading no code follows
    assert cited - numbered == set()  # a citation of no reading

"""The files the JavaScript tests (tests/js, `node --test`) read, written from the Python side:
the catalog the builder page carries for its script, and the typed names both sides must read
alike. ``python -m tests.js_fixtures`` writes them again after the catalog or the reading of
names changes; tests/unit/test_typed_names.py fails until then."""

import json
from pathlib import Path

import rules
from characters.builder.buttons import UnknownSkill, resolve_skill

FIXTURES = Path(__file__).parent / "fixtures"
CATALOG = FIXTURES / "names_catalog.json"
TYPED_NAMES = FIXTURES / "typed_names.json"

# What players type in the builder's add boxes: names as the catalog spells them and as people
# do, the rulebook's notation, and what the catalog lacks.
SKILLS_TYPED = [
    "Pilot", "pilot", "  vacc   suit ", "Medic", "medical", "Streetwize", "Animals", "Pistol",
    "Gun Combat", "gun combat", "Vehicle", "Ship's Boat", "Zero-G Combat", "Admin", "xyzzy", "",
    "Blade Combat (swords)-2", "blade combat (Swords)-1", "Blade Combat (lightsabers)",
    "Pilot-2 (small craft)", "Pilot-3 (small craft, fighters)", "Pilot (small craft)",
    "Pilot-2 (warp drive)", "Language (Vilani)", "Area Knowledge (Regina)-2", "Knowledge",
    "Handgun-1 (auto pistols)", "Aircraft-2 (fixed wing)", "Artillery-2 (AAA)", "Navigation-0",
    "Pilot-99999999999999999", "Broker (x)", "Steward-1", "Admin-2", "Comp", "Computer-2 (use)",
    "Gunnery-3 (ship's lasers)", "Gunnery-1 (ships lasers)", "Streetwise-1 ()", "Tactics (space)-1",
    "Bow (spear)-1", "Bow (spears)-2", "Survival (desert)-1", "Carousing-2 (parties)", "-2",
    "Pilot-", "(small craft)", "Medical-2 (surgery, x)",
    # Three near names by a word of their summaries, and two equally near spellings.
    "driving", "starship's", "weapons", "systems", "guns", "breaking", "moving",
]  # fmt: skip
TRAITS_TYPED = [
    "[PP-C-S 2]", "PP-C-S 2", "[pp-c-s 2]", "[PF-H-R CS4 -2]", "[PF-H-R CS 4 -2]", "[PF-H-R -2]",
    "[PF-H-R CS5 -2]", "[PP-C-S 3]", "[PP-C-0 5]", "[PP-X-S 2]", "[QQ-C-S 2]", "[HF-I-S -3]",
    "[PP INI+1 5]", "[PP INI + 1 DEF+1 10]", "[PF DEF-1 -5]", "[PF DEF+1 5]", "[PP INI+1 INI+1 10]",
    "[PP XYZ+1 5]", "[PP INI+1 4]", "nonsense", "", "*[PP-C-S 2]*", "[PP-C-S 99999999999999999]",
    "[MP-E-O 10]", "[PF-P-O CS5 -25]", "Loud [PF-I-S -2]", "Loud  voice [pf-i-s -2]",
    "Quick [PP INI+1 5]", "Loud [PF-I-S 3]", "Loud PF-I-S -2", "[Loud] [PF-I-S -2]",
]  # fmt: skip


def typed_names() -> dict:
    """How the Python side reads each of the names above."""
    cat = rules.catalog()
    skills = []
    for typed in SKILLS_TYPED:
        case: dict = {"typed": typed}
        try:
            row = resolve_skill(typed)
        except UnknownSkill as unknown:
            case |= {"error": str(unknown), "suggestions": list(unknown.suggestions)}
        except ValueError as unfit:
            case |= {"error": str(unfit), "suggestions": []}
        else:
            case["row"] = {
                "skill": row.skill,
                "cascade": row.cascade,
                "level": row.level,
                "specialties": list(row.specialties),
            }
        skills.append(case)
    traits = []
    for typed in TRAITS_TYPED:
        case = {"typed": typed}
        try:
            trait = rules.parse_trait(typed, cat=cat)
        except rules.NotationError as error:
            case["error"] = str(error)
        else:
            case["trait"] = {
                "type": trait.type,
                "name": trait.name,
                "level": trait.level or "",
                "frequency": trait.frequency or "",
                "control": trait.control,
                "derived": dict(trait.derived),
            }
        traits.append(case)
    return {"skills": skills, "traits": traits}


def _write(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    _write(CATALOG, rules.catalog().typed_names_index())
    _write(TYPED_NAMES, typed_names())
    print(f"wrote {CATALOG} and {TYPED_NAMES}")

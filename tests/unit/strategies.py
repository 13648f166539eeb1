"""Generated character documents for the engine's properties (hypothesis): every field,
entries of every kind, and values the rules refuse (levels above the maximum, off-table
traits)."""

from hypothesis import strategies as st

from rules import catalog

CAT = catalog()
CODES = CAT.attribute_order
SKILLS = CAT.skills
TRAIT_TYPES = (*CAT.perk_types, *CAT.flaw_types)


@st.composite
def skill_entries(draw):
    skill = draw(st.sampled_from(SKILLS))
    entry = {"skill": skill.name, "level": draw(st.integers(0, 6))}
    if skill.is_cascade:
        choices = list(skill.cascades) or ["Regina", "Anglic", "history"]
        entry["cascade"] = draw(st.sampled_from([*choices, "Zhodani"]))
    if skill.is_spec and draw(st.booleans()):
        names = [s.name for s in skill.specialties]
        entry["specialties"] = draw(st.lists(st.sampled_from(names), max_size=2, unique=True))
    return entry


@st.composite
def trait_entries(draw):
    trait_type = draw(st.sampled_from([*TRAIT_TYPES, "XP"]))
    if draw(st.booleans()):
        sign = 1 if trait_type in CAT.perk_types else -1
        code = draw(st.sampled_from(CAT.derived_order))
        return {
            "type": trait_type,
            "name": "derived",
            "derived": {code: sign * draw(st.integers(1, 3))},
        }
    return {
        "type": trait_type,
        "name": "trait",
        "level": draw(st.sampled_from("CEGIHPX")),
        "frequency": draw(st.sampled_from(["R", "S", "O", "0"])),
    }


equipment_entries = st.builds(
    lambda item, quantity: {"item": item.name, "quantity": quantity, "tl": item.tl},
    st.sampled_from(CAT.equipment),
    st.integers(1, 3),
)

documents = st.fixed_dictionaries(
    {
        "format": st.just("ffa-character/1"),
        "name": st.text(st.characters(categories=["L", "N", "Zs"]), min_size=1, max_size=30).filter(
            str.strip
        ),
        "attributes": st.fixed_dictionaries({code: st.integers(1, 15) for code in CODES}),
    },
    optional={
        "kind": st.sampled_from(["pc", "npc"]),
        "budget": st.integers(0, 300),
        "species": st.sampled_from(["human", "vargr", "HUMAN"]),
        "homeworld": st.sampled_from(["Regina", "Lair"]),
        "service": st.sampled_from([*CAT.services, "Navy"]),
        "terms": st.integers(0, 7),
        "rank": st.integers(-1, 7),
        "age": st.integers(0, 90),
        "skills": st.lists(skill_entries(), max_size=8),
        "traits": st.lists(trait_entries(), max_size=5),
        "psionics": st.none()
        | st.fixed_dictionaries(
            {
                "strength": st.integers(0, 12),
                "talents": st.dictionaries(
                    st.sampled_from([*CAT.talents, "Precognition"]), st.integers(0, 8), max_size=3
                ),
            }
        ),
        "mustering_out": st.fixed_dictionaries({"rolls": st.lists(st.integers(0, 7), max_size=4)})
        | st.fixed_dictionaries({"credits": st.integers(0, 10**6)}),
        "equipment": st.lists(equipment_entries, max_size=4),
    },
)

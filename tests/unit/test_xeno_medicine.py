"""Xeno Medicine: medical tests on a patient of another species."""

import pytest

from rules import healing_dm, xeno_medicine_dm, xeno_medicine_level

from .builders import report


def test_a_medic_treating_their_own_species_has_no_dm():
    assert xeno_medicine_dm("human", "human") == 0
    assert xeno_medicine_dm("vargr", "Vargr ") == 0


def test_a_patient_of_another_species_is_minus_five():
    assert xeno_medicine_dm("human", "aslan") == -5
    assert xeno_medicine_dm("vargr", "aslan") == -5


def test_vargr_and_human_physiology_is_close_enough_for_minus_two():
    assert xeno_medicine_dm("human", "vargr") == -2
    assert xeno_medicine_dm("vargr", "human") == -2
    assert xeno_medicine_dm("aslan", "human") == -2


def test_the_minor_human_races_are_close_enough_for_minus_two():
    assert xeno_medicine_dm("human", "minor human") == -2
    assert xeno_medicine_dm("vargr", "Minor Human") == -2
    assert xeno_medicine_dm("aslan", "minor human", 1) == -1


def test_solomani_and_vilani_are_human():
    # The rulebook names them as the Human physiology: one race, not two.
    assert xeno_medicine_dm("human", "Solomani") == 0
    assert xeno_medicine_dm("vilani", "solomani") == 0
    assert xeno_medicine_dm("Vilani", "human") == 0
    assert xeno_medicine_dm("vargr", "vilani") == -2
    assert xeno_medicine_dm("solomani", "vargr") == -2


@pytest.mark.parametrize(
    ("level", "close", "far"),
    [(None, -2, -5), (0, -2, -5), (1, -1, -4), (2, 0, -3), (4, 0, -1), (9, 0, 0)],
)
def test_xeno_medicine_offsets_the_dm_but_never_makes_it_positive(level, close, far):
    assert xeno_medicine_dm("human", "vargr", level) == close
    assert xeno_medicine_dm("human", "aslan", level) == far


def test_xeno_medicine_has_no_level_below_zero():
    with pytest.raises(ValueError, match="below level 0"):
        xeno_medicine_dm("human", "vargr", -1)


def test_the_healing_dm_adds_the_species_dm_when_both_species_are_given():
    kit = healing_dm(supplies="kit")
    assert healing_dm(supplies="kit", medic_species="human", patient_species="vargr") == kit - 2
    assert (
        healing_dm(supplies="kit", medic_species="human", patient_species="vargr", xeno_medicine=1)
        == kit - 1
    )
    assert healing_dm(supplies="kit", medic_species="human", patient_species="human") == kit
    assert healing_dm(supplies="kit", patient_species="vargr") == kit  # no medic species: no DM


def test_the_medics_xeno_medicine_level_is_read_from_the_report():
    assert xeno_medicine_level(report()) is None
    medic = report(skills=[{"skill": "xeno medicine", "level": 2}])
    assert xeno_medicine_level(medic) == 2

"""Conditions the play tests start from: fresh, hurt, with a wound."""

from rules import Condition, Wound, action_test, take_damage
from rules.play import Period
from tests.dice import Scripted


def medical(faces, *, tn, dm=0):
    """A Medical test at the level of the number of dice, thrown as ``faces``."""
    return action_test(rng=Scripted(faces), skill_level=len(faces), attribute_dm=0, dm=dm, tn=tn)


def fresh(lif=21, wnd=6):
    return Condition(maximum=lif, wnd=wnd)


def hurt(condition=None, *blows):
    condition = condition or fresh()
    for amount, form in blows:
        condition, _ = take_damage(condition, amount=amount, form=form)
    return condition


def codes(events):
    return [event.code for event in events]


def with_wound(severity, *, stabilised=False, treated=False, lethal=10):
    return Condition(
        maximum=21,
        wnd=6,
        lethal=lethal,
        wounds=(Wound(severity, lethal, lethal, stabilised=stabilised, treated=treated),),
    )


def light_wound(days):
    """A fresh character's light wound (9 damage against WND 6), thrown to bleed ``days``."""
    return take_damage(fresh(), amount=9, form="L", bleed_lasts=Period(days, "day"))

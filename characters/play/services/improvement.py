"""Improvement points: the referee's awards, the player's purchases (or requests where the
referee must agree) and the referee's decisions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from django.contrib.auth.models import User
from django.db import transaction

import rules
from characters.core.selectors import is_referee
from characters.core.services import (
    Refused,
    lock_character,
    log_event,
    require_referee,
    store_document,
    withdraw_if_submitted,
)
from characters.models import Character, CharacterEvent, ImprovementEntry
from characters.play.selectors import ip_balance
from characters.play.services.limits import MAX_IP_AWARD, MAX_IP_PRICE
from rules import ImprovementError, parse_document
from rules.play import Purchase


@transaction.atomic
def award_improvement_points(
    *, character: Character, by: User, amount: int, reason: str
) -> ImprovementEntry:
    """The referee of the character's campaign awards IP, saying what for."""
    locked = lock_character(character)
    require_referee(locked.campaign, by, "award improvement points", character=locked)
    reason = reason.strip()
    if not reason:
        raise Refused("Say what the improvement points are for.")
    if not 1 <= amount <= MAX_IP_AWARD:
        raise Refused(f"Award 1 to {MAX_IP_AWARD} IP at a time.")
    entry = ImprovementEntry.objects.create(
        character=locked,
        kind=ImprovementEntry.Kind.AWARD,
        amount=amount,
        reason=reason[:300],
        actor=by,
    )
    log_event(
        locked,
        kind=CharacterEvent.Kind.IP,
        by=by,
        detail=f"Awarded {amount} IP: {reason}",
    )
    return entry


@transaction.atomic
def award_improvement_points_to_each(
    *, characters: Sequence[Character], by: User, amount: int, reason: str
) -> list[ImprovementEntry]:
    """The same award to several characters, all or none: one refusal awards nobody."""
    return [
        award_improvement_points(character=character, by=by, amount=amount, reason=reason)
        for character in characters
    ]


def _parsed(character: Character):
    return parse_document(character.document)


def _price_and_check(locked: Character, purchase: Purchase) -> tuple[int, str]:
    """The IP cost and the description of a purchase the engine accepts; else Refused with
    the engine's own words. The creation caps are checked under the character's rules."""
    parsed = _parsed(locked)
    try:
        label = rules.describe_purchase(parsed, purchase)
        cost, problems = rules.check_improvement(parsed, purchase, house_rules=locked.house_rules())
    except ImprovementError as error:
        raise Refused(str(error)) from None
    if problems:
        raise Refused(
            f"{label[0].upper()}{label[1:]} is not allowed: "
            + " ".join(problem.message for problem in problems)
        )
    return cost, label


def _buy(
    locked: Character,
    purchase: Purchase,
    *,
    by: User,
    request: ImprovementEntry | None = None,
) -> ImprovementEntry:
    """Make a purchase the engine accepts and the balance pays: the improved document (its
    budget raised by the creation points the purchase adds, and the character's
    ``budget_added`` with it), a revision, the ledger entry and the log line."""
    cost, label = _price_and_check(locked, purchase)
    balance = ip_balance(locked)
    if cost > balance:
        raise Refused(
            f"{label[0].upper()}{label[1:]} costs {cost} IP, but {locked.name} has {balance}."
        )
    parsed = _parsed(locked)
    house_rules = locked.house_rules()
    added = rules.creation_points_added(parsed, purchase, house_rules=house_rules)
    improved = rules.apply_improvement(parsed, purchase)
    document = rules.to_document(replace(improved, budget=parsed.budget + added))
    campaign_rules = (
        locked.campaign.house_rules(budget_added=locked.budget_added + added)
        if locked.campaign
        else None
    )
    try:
        current, revision = store_document(
            locked,
            document,
            by=by,
            action=f"Improvement: {label}",
            house_rules=campaign_rules,
            budget_added=added,
        )
    except rules.MalformedDocument as malformed:
        raise Refused(f"Nothing was bought: {malformed}.") from None
    entry = ImprovementEntry.objects.create(
        character=current,
        kind=ImprovementEntry.Kind.PURCHASE,
        amount=-cost,
        cost=cost,
        purchase=rules.purchase_as_dict(purchase),
        description=label[:300],
        points_added=added,
        request=request,
        revision=revision,
        actor=by,
    )
    # An approved request is the referee's act on the player's points: the log says both.
    spent = f"Spent {cost} IP: {label}."
    detail = spent if request is None else f"Approved the request. {spent}"
    log_event(current, kind=CharacterEvent.Kind.IP, by=by, detail=detail)
    withdraw_if_submitted(current, by=by, reason="An improvement bought while submitted")
    return entry


@transaction.atomic
def spend_improvement_points(
    *, character: Character, by: User, purchase: Purchase
) -> ImprovementEntry:
    """The owner spends IP on a purchase at the rulebook's cost, within the creation caps.

    A purchase that needs the referee's permission (``rules.permission_needed``: a new skill, a
    new perk, buying off a flaw, a raise the referee prices) becomes a pending request
    instead, and moves no IP until the referee approves it. A purchase is refused, with the
    engine's words, when the engine rejects it, when it breaks a creation cap, or when the
    balance does not cover it; then nothing is written.

    An approved character can be improved: a purchase is a sanctioned change (the engine has
    checked it against the creation caps), so it does not reopen the character. A submitted
    character is withdrawn from review, as by any other change.
    """
    locked = lock_character(character)
    if locked.owner_id != by.pk:
        raise Refused(f"Only the player who owns {locked.name} can spend its improvement points.")
    reason = rules.permission_needed(_parsed(locked), purchase)
    if reason is None:
        return _buy(locked, purchase, by=by)
    if rules.referee_prices(purchase):
        # The referee names the price on approval; the caps are checked now all the same.
        _price_and_check(locked, replace(purchase, ip=1))  # type: ignore[arg-type]  # priced kinds have ip
        cost, label = None, rules.describe_purchase(_parsed(locked), purchase)
    else:
        cost, label = _price_and_check(locked, purchase)
        balance = ip_balance(locked)
        if cost > balance:
            raise Refused(
                f"{label[0].upper()}{label[1:]} costs {cost} IP, but {locked.name} has {balance}."
            )
    entry = ImprovementEntry.objects.create(
        character=locked,
        kind=ImprovementEntry.Kind.REQUEST,
        amount=0,
        cost=cost,
        purchase=rules.purchase_as_dict(purchase),
        description=label[:300],
        reason=reason,
        state=ImprovementEntry.State.PENDING,
        actor=by,
    )
    log_event(
        locked,
        kind=CharacterEvent.Kind.IP,
        by=by,
        detail=f"Asked the referee: {label}" + (f" ({cost} IP)." if cost is not None else "."),
    )
    return entry


@transaction.atomic
def decide_request(
    *,
    entry: ImprovementEntry,
    by: User,
    approve: bool,
    ip: int | None = None,
    comment: str = "",
) -> ImprovementEntry:
    """The referee approves a pending request (which makes the purchase, on the player's IP;
    ``ip`` is the referee's price where the rulebook has none) or declines it; the player may
    withdraw their own request. Returns the purchase when approved, else the request."""
    locked = lock_character(entry.character)
    request = ImprovementEntry.objects.select_for_update().get(pk=entry.pk, character=locked)
    if request.kind != ImprovementEntry.Kind.REQUEST or request.state != request.State.PENDING:
        raise Refused("That request was already decided.")
    if not approve and not is_referee(locked.campaign, by.pk) and locked.owner_id == by.pk:
        request.state, request.reason = request.State.DECLINED, "Withdrawn by the player."
        request.save(update_fields=["state", "reason"])
        log_event(
            locked, kind=CharacterEvent.Kind.IP, by=by, detail=f"Withdrew: {request.description}."
        )
        return request
    require_referee(locked.campaign, by, "decide on improvement requests", character=locked)
    comment = comment.strip()
    if not approve:
        request.state = request.State.DECLINED
        request.reason = f"Declined: {comment}" if comment else "Declined."
        request.save(update_fields=["state", "reason"])
        log_event(
            locked,
            kind=CharacterEvent.Kind.IP,
            by=by,
            detail=f"Declined: {request.description}." + (f" {comment}" if comment else ""),
        )
        return request
    purchase = rules.purchase_from_dict(request.purchase)
    if rules.referee_prices(purchase):
        if ip is None or not 1 <= ip <= MAX_IP_PRICE:
            raise Refused(
                f"Set the IP cost from 1 to {MAX_IP_PRICE:,}: the rulebook gives none for this "
                "purchase."
            )
        purchase = replace(purchase, ip=ip)  # type: ignore[arg-type]  # priced kinds have ip
    bought = _buy(locked, purchase, by=by, request=request)
    request.state = request.State.APPROVED
    request.reason = f"Approved: {comment}" if comment else "Approved."
    request.save(update_fields=["state", "reason"])
    return bought

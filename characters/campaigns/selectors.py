"""Reads about campaigns: the campaigns of a user, membership, the campaign of an invite, and
the campaign page: the party review the referee sees (a fixed number of queries however
large the party) and the roster the members see."""

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Prefetch, Q, QuerySet, prefetch_related_objects

import rules
from characters.core.selectors import character_report, key_skills
from characters.encounters.selectors import encounters_of
from characters.models import (
    Campaign,
    CampaignMembership,
    Character,
    CharacterEvent,
    CombatSystem,
    DiceRoll,
    Encounter,
    ImprovementEntry,
    PlayState,
)
from characters.play import selectors as play_selectors
from rules import Condition, Problem, Report

Status = Character.Status


def campaign_for_invite(code: str) -> Campaign | None:
    """The campaign an active invite code opens, or None."""
    return (
        Campaign.objects.select_related("referee")
        .filter(invite_code=code, invite_active=True)
        .first()
    )


def is_member(campaign: Campaign, user: User) -> bool:
    return campaign.memberships.filter(user=user).exists()


def campaigns_of(user):
    """Campaigns the user referees or plays in."""
    return Campaign.objects.filter(Q(referee=user) | Q(memberships__user=user)).distinct()


def attachable(user: User, campaign: Campaign | None = None) -> QuerySet[Character]:
    """The user's characters that could join a campaign: in none yet; PCs, and for the
    campaign's referee their NPCs too."""
    characters = Character.objects.owned_by(user).filter(campaign__isnull=True)
    if campaign is None or campaign.referee_id != user.pk:
        characters = characters.filter(kind=Character.Kind.PC)
    return characters.order_by("name", "id")


@dataclass(frozen=True, slots=True)
class PartyRow:
    """One character of the party review, with the engine's report under the house rules."""

    character: Character
    report: Report
    errors: tuple[Problem, ...]
    warnings: tuple[Problem, ...]
    service: str
    rank: str
    psionics: str
    key_skills: tuple[str, ...]

    @property
    def player(self) -> str:
        return self.character.owner.get_username()

    # In play: what the referee asks of the party at the table.
    credits_now: int
    ip: int
    condition: Condition
    state: str
    requests: int
    returned_comment: str
    # Under T4 or 2D6, the record of the campaign's system (play.selectors.record_view).
    record: dict[str, Any] | None

    @property
    def now_sort(self) -> int:
        """How well the character is now: its LIF, or the points its record has taken."""
        return self.condition.lif if self.record is None else -self.record["taken"]


STATUS_ORDER: dict[str, int] = {
    Status.SUBMITTED: 0,
    Status.RETURNED: 1,
    Status.DRAFT: 2,
    Status.APPROVED: 3,
}


def _derived(code: str) -> Callable[[PartyRow], Any]:
    return lambda row: getattr(row.report.derived, code)


# The whitelist of ?sort= keys: (column heading, sort key). ``-key`` sorts descending.
SORTS: dict[str, tuple[str, Callable[[PartyRow], Any]]] = {
    "player": ("Player", lambda row: row.player.lower()),
    "name": ("Character", lambda row: row.character.name.lower()),
    "status": ("Status", lambda row: STATUS_ORDER.get(row.character.status, 9)),
    "upp": ("UPP", lambda row: row.report.upp),
    **{code.lower(): (code, _derived(code)) for code in ("DEF", "INI", "MOV", "TGH", "LIF", "WND")},
    "points": ("Points", lambda row: (row.report.points.total, row.report.points.budget)),
    "problems": ("Problems", lambda row: (len(row.errors), len(row.warnings))),
    "service": ("Service", lambda row: row.service.lower()),
    "terms": ("Terms", lambda row: row.report.terms),
    "rank": ("Rank", lambda row: row.report.rank.level),
    "credits": ("Credits", lambda row: row.credits_now),
    "ip": ("IP", lambda row: row.ip),
    "lif_now": ("LIF now", lambda row: row.now_sort),
    "psionics": (
        "PSI",
        lambda row: row.report.psionics.strength if row.report.psionics else -1,
    ),
}
DEFAULT_SORT = "status"
CAMPAIGN_ROLLS = 25


def _party_row(character: Character, campaign: Campaign, state: PlayState | None) -> PartyRow:
    """The row of one character; its ledgers and review log are prefetched (``party_page``)."""
    report = character_report(character, campaign=campaign)
    cat = rules.catalog()
    service = cat.services.get(report.service or "")
    rank = report.rank
    psionics = report.psionics
    condition, _version = play_selectors.condition_in(state, report)
    entries = character.improvement_entries.all()
    return PartyRow(
        record=play_selectors.sheet_record(character, state, report)["record"],
        credits_now=play_selectors.credit_balance(character, report),
        ip=play_selectors.ip_balance(character),
        condition=condition,
        state=play_selectors.states(condition)[0][1],
        requests=sum(
            1
            for entry in entries
            if entry.kind == ImprovementEntry.Kind.REQUEST
            and entry.state == ImprovementEntry.State.PENDING
        ),
        # The latest return's comment, while the player has not answered it.
        returned_comment=(
            character.returns[0].comment  # type: ignore[attr-defined]  # prefetched to_attr
            if character.status == Status.RETURNED and character.returns  # type: ignore[attr-defined]
            else ""
        ),
        character=character,
        report=report,
        errors=report.errors,
        warnings=report.warnings,
        service=service.name if service else (report.service or ""),
        rank=rank.title or (f"Rank {rank.level}" if rank.level else ""),
        psionics=(
            f"PSI {psionics.strength}"
            + "".join(f", {name}-{level}" for name, level in psionics.talents)
            if psionics
            else ""
        ),
        key_skills=key_skills(report),
    )


def _sorted_rows(rows: list[PartyRow], sort: str) -> list[PartyRow]:
    descending = sort.startswith("-")
    _, key = SORTS[sort.lstrip("-")]
    rows = sorted(rows, key=lambda row: (row.player.lower(), row.character.name.lower()))
    return sorted(rows, key=key, reverse=descending)


# The heading of the condition column under each combat system.
NOW_LABELS: dict[str, str] = {CombatSystem.T4: "T4 now", CombatSystem.TWOD6: "2D6 now"}


def _headers(sort: str, system: str = CombatSystem.FFA) -> list[dict[str, Any]]:
    current, descending = sort.lstrip("-"), sort.startswith("-")
    headers = []
    for key, (label, _) in SORTS.items():
        if key == "lif_now":
            label = NOW_LABELS.get(system, label)
        active = key == current
        headers.append(
            {
                "key": key,
                "label": label,
                "query": f"-{key}" if active and not descending else key,
                "aria_sort": ("descending" if descending else "ascending") if active else "",
            }
        )
    return headers


def _encounters(campaign: Campaign) -> dict[str, list[Encounter]]:
    """The campaign's encounters under way, and its past ones (ended, read-only)."""
    active, past = encounters_of(campaign.pk)
    return {"encounters": active, "past_encounters": past}


def house_rules_summary(campaign: Campaign) -> list[tuple[str, str]]:
    cat = rules.catalog()
    services_open = (
        ", ".join(
            cat.services[key].name if key in cat.services else key for key in campaign.open_services
        )
        if campaign.open_services
        else "All"
    )
    return [
        ("Point budget for player characters", str(campaign.pc_budget)),
        ("One trait per term", "On" if campaign.one_trait_per_term else "Off"),
        ("Psionics", "Allowed" if campaign.psionics_allowed else "Not allowed"),
        ("Highest former rank", str(campaign.max_former_rank)),
        ("Open services", services_open),
        ("PDF page size", campaign.get_page_size_display()),
        ("Combat system", campaign.get_combat_system_display()),
    ]


@dataclass(frozen=True, slots=True)
class _People:
    """Who is in the campaign: its characters with their players, its members with theirs and
    how many characters each has there, and the user's own characters that could join."""

    characters: list[Character]
    memberships: list[CampaignMembership]
    per_player: Counter[int]
    attachable: list[Character]

    @property
    def waiting(self) -> list[User]:
        """The members without a character in the campaign yet."""
        return [m.user for m in self.memberships if not self.per_player[m.user_id]]


def _people(campaign: Campaign, user: User) -> _People:
    characters = list(
        campaign.characters.select_related("owner").order_by("owner__username", "name", "id")
    )
    memberships = list(campaign.memberships.select_related("user").order_by("user__username"))
    return _People(
        characters=characters,
        memberships=memberships,
        per_player=Counter(c.owner_id for c in characters),
        attachable=list(attachable(user, campaign)),
    )


def _rolls(campaign: Campaign) -> QuerySet[DiceRoll]:
    """The campaign's action tests, newest first (lazy: a sort never reads them)."""
    rolls = DiceRoll.objects.filter(campaign=campaign, character__deleted_at__isnull=True)
    return rolls.select_related("character", "actor")


def roster_page(campaign: Campaign, user: User) -> dict[str, Any]:
    """The campaign as a member sees it: the player characters, who waits for one, the
    house rules, the encounters and the players' latest tests."""
    people = _people(campaign, user)
    return {
        "campaign": campaign,
        "roster": [c for c in people.characters if c.kind == Character.Kind.PC],
        "waiting": people.waiting,
        "attachable": people.attachable,
        "house_rules": house_rules_summary(campaign),
        **_encounters(campaign),
        # The referee's NPCs are the referee's: members never see their rolls.
        "rolls": _rolls(campaign).filter(character__kind=Character.Kind.PC)[:CAMPAIGN_ROLLS],
    }


def party_page(campaign: Campaign, user: User, *, sort: str) -> dict[str, Any]:
    """The party review the referee sees, sorted by ``sort`` (a key of SORTS, ``-`` first for
    descending): each character's row with the engine's report under the house rules and its
    state in play, the NPCs, the members, the house rules, the encounters and the tests.

    A fixed number of queries however large the party: the campaign's characters with their
    players, its members with theirs, the referee's own characters to attach, the ledgers, the
    review log's returns and the play states, the latest rolls. The engine's checks run in
    Python under the campaign's house rules.
    """
    people = _people(campaign, user)
    characters = people.characters
    returns = CharacterEvent.objects.filter(
        kind=CharacterEvent.Kind.STATUS, to_status=Status.RETURNED
    ).order_by("-created_at")
    prefetch_related_objects(
        characters,
        "credit_entries",
        "improvement_entries",
        Prefetch("events", queryset=returns, to_attr="returns"),
    )
    states = {state.pk: state for state in PlayState.objects.filter(character__in=characters)}
    for character in characters:
        # What each sheet reads of its play state (the armor worn) comes from here.
        Character.play_state.related.set_cached_value(character, states.get(character.pk))
    rows = _sorted_rows([_party_row(c, campaign, states.get(c.pk)) for c in characters], sort)
    party = [row for row in rows if row.character.kind == Character.Kind.PC]
    counts = dict.fromkeys(Status.values, 0)
    for row in party:
        counts[row.character.status] += 1
    return {
        "campaign": campaign,
        "party": party,
        "npcs": [row for row in rows if row.character.kind == Character.Kind.NPC],
        "waiting": people.waiting,
        "members": [(m.user, people.per_player[m.user_id]) for m in people.memberships],
        "attachable": people.attachable,
        "counts": counts,
        "sort": sort,
        "headers": _headers(sort, campaign.combat_system),
        "house_rules": house_rules_summary(campaign),
        # Lazy: a sort with htmx renders only the tables and never reads the rolls.
        "rolls": _rolls(campaign)[:CAMPAIGN_ROLLS],
        **_encounters(campaign),
    }

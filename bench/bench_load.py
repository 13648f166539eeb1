"""A sustained load on the production app server: 20 players at once, each on a character of
their own, for 60 s a phase (10 s with --quick), while a probe asks /healthz ten times a second.

Each player runs a closed loop without pauses, as fast as the server answers: open the sheet,
then save two edits in the builder as its page does (htmx posts of the whole form, each with
the version the previous save returned, one editing session and the page's count of its
saves). Every round of the loop writes a new note, so the note of a player's last acknowledged
save is what must be stored at the end.

Three phases, one after the other on one server:

1. the players alone;
2. the players while two more accounts loop, as fast as they are answered, the heaviest legal
   sheet (every bound at its most, notes of 10,000 lines) and the party PDF of a campaign of
   seven such characters (issue 37's attack);
3. the same, the two accounts changing their sheet before every PDF, so that none can come from
   the cache and every one is a render the limits must hold back.

Figures: requests per second, p50 and p95 latency of the players' pages, p95 of /healthz, and
for phases 2 and 3 their ratios to phase 1; errors (any unexpected status or answer on the
pages and /healthz, 5xx included; must be 0), the PDF loops' answers by status (a refusal is a
429 or 503 by design; a 500 is an error) and lost saves (characters whose stored note or version
is not their last acknowledged save's; must be 0). The server is gunicorn as `make serve` runs
it, with its default workers, on a throwaway SQLite database; the players are threads of this
process on the same machine, so the figures are this machine's, to compare within one run.
"""

import collections
import http.client
import json
import secrets
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from bench.core import Figure, bench_user, throwaway_database

PASSWORD = "bench-password"
USERS = 20
PDF_ACCOUNTS = 2
PARTY = 7
HEALTHZ_EVERY_SECONDS = 0.1


def _setup() -> list[tuple[str, object]]:
    """Django on a throwaway database (another suite's, if one already set Django up), and
    USERS players with a character each: (session cookie, character)."""
    throwaway_database("load")
    from django.test import Client

    from characters.builder import services as builder_services
    from tests.factories import character_document

    players = []
    for n in range(USERS):
        user = bench_user("load", f"player-{n}", password=PASSWORD)
        character = builder_services.create_character(
            owner=user,
            document=character_document(
                name=f"Load {n:02d}",
                homeworld="Regina",
                skills=[{"skill": "Pilot", "level": 1, "specialties": ["small craft"]}],
            ),
        )
        client = Client()
        client.login(username=user.get_username(), password=PASSWORD)
        players.append((client.cookies["sessionid"].value, character))
    return players


@dataclass
class Player:
    session: str
    character: object
    editing_session: str = field(default_factory=lambda: secrets.token_hex(8))
    version: int = 1
    acknowledged_notes: str = ""
    # The page's count of its saves, which the server orders them by: it never starts again
    # within a sitting (a later phase's saves stamped low would be taken for older ones).
    stamp: int = 0
    saves: int = 0  # rounds of the loop whose saves were all acknowledged
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def next_stamp(self) -> int:
        self.stamp += 1
        return self.stamp


def _play(player: Player, port: int, deadline: float) -> None:
    from tests.factories import builder_post

    csrf = secrets.token_hex(16)
    headers = {
        "Cookie": f"sessionid={player.session}; csrftoken={csrf}",
        "X-CSRFToken": csrf,
        "Content-Type": "application/x-www-form-urlencoded",
    }
    pk = player.character.pk
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(
        method: str, path: str, body: dict | None = None, **extra
    ) -> http.client.HTTPResponse | None:
        start = time.perf_counter()
        try:
            connection.request(
                method, path, urlencode(body, doseq=True) if body else None, {**headers, **extra}
            )
            response = connection.getresponse()
            response.read()
        except (OSError, http.client.HTTPException) as failure:
            connection.close()  # a fresh connection for the next request
            player.errors.append(f"{method} {path}: {failure!r}")
            return None
        player.latencies.append(time.perf_counter() - start)
        if response.status != 200:
            player.errors.append(f"{method} {path}: {response.status}")
            return None
        return response

    edit = 0
    while time.perf_counter() < deadline:
        edit += 1
        notes = f"edit {edit} of {player.editing_session}"
        request("GET", f"/characters/{pk}/")
        # Two edits, each saved as the builder page saves them (htmx), the answer's version
        # carried into the next, as the page does.
        for dex in (8, 9):
            form = builder_post(
                player.character,
                version=str(player.version),
                editing_session=player.editing_session,
                edit_stamp=str(player.next_stamp()),
                DEX=str(dex),
                notes=notes,
            )
            response = request("POST", f"/characters/{pk}/edit/", form, **{"HX-Request": "true"})
            if response is None:
                break
            answer = json.loads(response.getheader("HX-Trigger-After-Settle"))["builder:saved"]
            if answer.get("state") != "saved":
                player.errors.append(f"save: {answer}")
                break
            player.version = answer["version"]
        else:
            player.acknowledged_notes = notes
            player.saves += 1
    connection.close()


def _lost_saves(players: list[Player]) -> int:
    from characters.models import Character

    stored = {c.pk: c for c in Character.objects.filter(pk__in=[p.character.pk for p in players])}
    lost = 0
    for player in players:
        character = stored[player.character.pk]
        if not player.acknowledged_notes:
            continue  # nothing acknowledged, nothing to lose (it counts as errors instead)
        if (
            character.document.get("notes") != player.acknowledged_notes
            or character.version != player.version
        ):
            lost += 1
    return lost


def heaviest_legal(name: str) -> dict:
    """Every bound at its most, and the notes of 10,000 lines that took seconds to print."""
    import rules
    from tests.integration import sheet_documents

    lines = rules.catalog().bounds.notes_length // 2
    return sheet_documents.largest_legal() | {"name": name, "notes": "\n".join(["a"] * lines)}


@dataclass
class PdfAccount:
    """An account that prints in a loop: its heaviest sheet, and its campaign's party."""

    session: str
    sheet: object
    urls: tuple[str, ...]
    statuses: collections.Counter = field(default_factory=collections.Counter)


def _pdf_setup() -> list[PdfAccount]:
    """PDF_ACCOUNTS referees, each with a campaign of PARTY of the heaviest legal characters."""
    from django.test import Client

    from characters.builder import services as builder_services
    from characters.campaigns import services as campaigns_services

    accounts = []
    for n in range(PDF_ACCOUNTS):
        referee = bench_user("load", f"printer-{n}", password=PASSWORD)
        player = bench_user("load", f"printer-{n}-player")
        campaign = campaigns_services.create_campaign(referee=referee, name=f"Heavy {n}")
        campaigns_services.join_campaign(user=player, code=campaign.invite_code)
        party = [
            builder_services.create_character(
                owner=player, document=heaviest_legal(f"Heavy {n}-{m}"), campaign=campaign
            )
            for m in range(PARTY)
        ]
        client = Client()
        client.login(username=referee.get_username(), password=PASSWORD)
        urls = (f"/characters/{party[0].pk}/sheet.pdf", f"/campaigns/{campaign.pk}/party.pdf?all=1")
        accounts.append(PdfAccount(client.cookies["sessionid"].value, party[0], urls))
    return accounts


def _print_in_a_loop(
    account: PdfAccount, port: int, deadline: float, change: Callable[[object], None] | None
) -> None:
    headers = {"Cookie": f"sessionid={account.session}"}
    while time.perf_counter() < deadline:
        for url in account.urls:
            if change is not None:
                change(account.sheet)
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            try:
                connection.request("GET", url, headers=headers)
                response = connection.getresponse()
                response.read()
                account.statuses[response.status] += 1
            except (OSError, http.client.HTTPException) as failure:
                account.statuses[type(failure).__name__] += 1
            finally:
                connection.close()
    if change is not None:
        from django.db import connection as database

        database.close()  # the changes' connection, of this thread


def _new_notes(character) -> None:
    """A change to the sheet (as the builder would save it), so its PDF is a new one."""
    from characters.models import Character

    notes = character.document["notes"]
    mark = secrets.token_hex(8)  # in place of the notes' first letters: no longer than before
    document = {**character.document, "notes": mark + notes[len(mark) :]}
    Character.objects.filter(pk=character.pk).update(document=document)


def _probe_healthz(port: int, deadline: float, latencies: list[float], errors: list[str]) -> None:
    while time.perf_counter() < deadline:
        start = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            connection.request("GET", "/healthz")
            response = connection.getresponse()
            response.read()
            latencies.append(time.perf_counter() - start)
            if response.status != 200:
                errors.append(f"GET /healthz: {response.status}")
        except (OSError, http.client.HTTPException) as failure:
            errors.append(f"GET /healthz: {failure!r}")
        finally:
            connection.close()
        time.sleep(max(0.0, HEALTHZ_EVERY_SECONDS - (time.perf_counter() - start)))


@dataclass
class Phase:
    players: list[Player]
    healthz: list[float]
    errors: list[str]
    pdf_statuses: collections.Counter
    seconds: float

    @property
    def page_latencies(self) -> list[float]:
        return sorted(ms * 1000 for p in self.players for ms in p.latencies)

    @property
    def page_p95(self) -> float:
        return _p95(self.page_latencies)

    @property
    def healthz_p95(self) -> float:
        return _p95([ms * 1000 for ms in self.healthz])


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def _phase(
    port: int,
    players: list[Player],
    seconds: float,
    printers: list[PdfAccount] = (),
    change: Callable[[object], None] | None = None,
) -> Phase:
    from django.core.cache import caches

    from characters.pdf import rendering as pdf_rendering

    # Every phase starts from nothing rendered, refused or counted.
    pdf_rendering.clear_cache()
    caches["throttle"].clear()
    healthz: list[float] = []
    errors: list[str] = []
    deadline = time.perf_counter() + seconds
    threads = [threading.Thread(target=_play, args=(p, port, deadline)) for p in players]
    threads.append(threading.Thread(target=_probe_healthz, args=(port, deadline, healthz, errors)))
    threads += [
        threading.Thread(target=_print_in_a_loop, args=(a, port, deadline, change))
        for a in printers
    ]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sum((a.statuses for a in printers), collections.Counter())
    errors += [e for p in players for e in p.errors]
    return Phase(players, healthz, errors, statuses, time.perf_counter() - start)


def _fresh(players: list[Player]) -> list[Player]:
    """The same players with empty records, their versions and save counts carried over."""
    return [
        Player(p.session, p.character, p.editing_session, p.version, p.acknowledged_notes, p.stamp)
        for p in players
    ]


def run(quick: bool) -> list[Figure]:
    from django.conf import settings

    from bench.server import gunicorn

    players = [Player(session, character) for session, character in _setup()]
    printers = _pdf_setup()
    seconds = 10 if quick else 60
    with gunicorn(str(settings.VAR_DIR)) as port:
        # Warm up each worker (imports, the catalog, the template cache) outside the figures.
        warm = Player(players[0].session, players[0].character)
        _play(warm, port, time.perf_counter() + 1)
        players[0].version = warm.version
        alone = _phase(port, players, seconds)
        players = _fresh(alone.players)
        printing = _phase(port, players, seconds, printers)
        players = _fresh(printing.players)
        for account in printers:
            account.statuses.clear()
        changing = _phase(port, players, seconds, printers, change=_new_notes)
    for error in (alone.errors + printing.errors + changing.errors)[:5]:
        print(f"  error: {error}")
    return [
        *_phase_figures(f"{USERS} players alone, {seconds} s", alone),
        *_phase_figures(f"{USERS} players, {PDF_ACCOUNTS} accounts printing", printing, alone),
        *_phase_figures(f"{USERS} players, {PDF_ACCOUNTS} editing and printing", changing, alone),
        Figure("lost saves (stored is not the last acknowledged), all phases", "count",
               (float(_lost_saves(changing.players)),), higher_is_better=False, target=0),
    ]  # fmt: skip


def _phase_figures(label: str, phase: Phase, baseline: Phase | None = None) -> list[Figure]:
    figures = [
        Figure(f"{label}: pages (sheet, 2 saves)", "req/s",
               (len(phase.page_latencies) / phase.seconds,)),
        Figure("  page latency p50", "ms", (statistics.median(phase.page_latencies),),
               higher_is_better=False),
        Figure("  page latency p95", "ms", (phase.page_p95,), higher_is_better=False),
        Figure("  /healthz latency p95", "ms", (phase.healthz_p95,), higher_is_better=False),
        Figure("  errors on pages and /healthz (5xx, other status, no answer)", "count",
               (float(len(phase.errors)),), higher_is_better=False, target=0),
    ]  # fmt: skip
    if baseline is not None:
        statuses = phase.pdf_statuses
        figures += [
            Figure("  page p95 / players alone", "x", (phase.page_p95 / baseline.page_p95,),
                   higher_is_better=False),
            Figure("  /healthz p95 / players alone", "x",
                   (phase.healthz_p95 / baseline.healthz_p95,), higher_is_better=False),
            *(Figure(f"  PDF answers {status}", "count", (float(count),))
              for status, count in sorted(statuses.items(), key=str) if status != 500),
            Figure("  PDF answers 500", "count", (float(statuses[500]),),
                   higher_is_better=False, target=0),
        ]  # fmt: skip
    return figures

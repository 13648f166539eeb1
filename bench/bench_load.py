"""A sustained load on the production app server: 20 players at once, each on a character of
their own, for 60 s (10 s with --quick).

Each player runs a closed loop without pauses, as fast as the server answers: open the sheet,
preview two edits of the builder (as htmx posts them), autosave the last (as builder.js posts
it, with the version the previous save returned and one editing session). Every autosave writes
a new note, so the note of a player's last acknowledged save is what must be stored at the end.

Figures: requests per second, p50 and p95 latency over all requests, errors (any unexpected
status or answer; the issue asks for 0) and lost saves (characters whose stored note or version
is not their last acknowledged save's; must be 0). The server is gunicorn as `make serve` runs
it, one sync worker per core, on a throwaway SQLite database; the players are threads of this
process on the same machine, so the rates are this machine's, to compare between runs.
"""

import http.client
import json
import os
import secrets
import statistics
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

from bench.core import Figure, bench_user, throwaway_database

PASSWORD = "bench-password"
USERS = 20
SERVER_WORKERS = os.cpu_count() or 2


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
    saves: int = 0  # autosaves acknowledged as saved
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


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

    def request(method: str, path: str, body: dict | None = None, **extra) -> bytes | None:
        start = time.perf_counter()
        try:
            connection.request(
                method, path, urlencode(body, doseq=True) if body else None, {**headers, **extra}
            )
            response = connection.getresponse()
            content = response.read()
        except (OSError, http.client.HTTPException) as failure:
            connection.close()  # a fresh connection for the next request
            player.errors.append(f"{method} {path}: {failure!r}")
            return None
        player.latencies.append(time.perf_counter() - start)
        if response.status != 200:
            player.errors.append(f"{method} {path}: {response.status}")
            return None
        return content

    edit = 0
    while time.perf_counter() < deadline:
        edit += 1
        notes = f"edit {edit} of {player.editing_session}"
        request("GET", f"/characters/{pk}/")
        for dex in (8, 9):
            form = builder_post(
                player.character,
                version=str(player.version),
                editing_session=player.editing_session,
                DEX=str(dex),
                notes=notes,
            )
            request(
                "POST",
                f"/characters/{pk}/preview/",
                {**form, "edited": "DEX notes"},
                **{"HX-Request": "true"},
            )
        content = request("POST", f"/characters/{pk}/autosave/", form)
        if content is None:
            continue
        answer = json.loads(content)
        if answer.get("state") != "saved":
            player.errors.append(f"autosave: {answer}")
            continue
        player.version = answer["version"]
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


def run(quick: bool) -> list[Figure]:
    from bench.server import gunicorn

    players = [Player(session, character) for session, character in _setup()]
    seconds = 10 if quick else 60
    from django.conf import settings

    with gunicorn(str(settings.VAR_DIR), workers=SERVER_WORKERS) as port:
        # Warm up each worker (imports, the catalog, the template cache) outside the figures.
        warm = Player(players[0].session, players[0].character)
        _play(warm, port, time.perf_counter() + 1)
        players[0].version = warm.version
        start = time.perf_counter()
        deadline = start + seconds
        threads = [threading.Thread(target=_play, args=(p, port, deadline)) for p in players]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - start
    latencies = sorted(ms * 1000 for p in players for ms in p.latencies)
    errors = [e for p in players for e in p.errors]
    for error in errors[:5]:
        print(f"  error: {error}")
    p95 = statistics.quantiles(latencies, n=20)[-1] if len(latencies) > 1 else latencies[0]
    label = f"{USERS} users, {seconds} s, gunicorn {SERVER_WORKERS} workers"
    return [
        Figure(f"requests ({label}: sheet, 2 previews, autosave)", "req/s",
               (len(latencies) / elapsed,)),
        Figure("  latency p50, all requests", "ms", (statistics.median(latencies),),
               higher_is_better=False),
        Figure("  latency p95, all requests", "ms", (p95,), higher_is_better=False),
        Figure("  errors (unexpected status or answer)", "count", (float(len(errors)),),
               higher_is_better=False, target=0),
        Figure("  lost saves (stored is not the last acknowledged)", "count",
               (float(_lost_saves(players)),), higher_is_better=False, target=0),
        Figure("  acknowledged autosaves", "count",
               (float(sum(p.saves for p in players)),)),
    ]  # fmt: skip

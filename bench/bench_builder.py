"""The builder's live preview: server throughput beside /healthz, and input-to-DEF in Chromium.

Targets: the preview answers at least half as many requests per second as /healthz on the same
stack in the same run, and the browser shows the new DEF within 100 ms (p50) of an input on
localhost. Runs against a throwaway SQLite database in a temporary FFA_VAR_DIR.
"""

import os
import tempfile

from bench.core import Figure, rate
from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS

_FOLDER = tempfile.mkdtemp(prefix="ffa-bench-")
PASSWORD = "bench-password"


def _setup():
    os.environ["FFA_VAR_DIR"] = _FOLDER
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ffa_site.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from characters import services
    from tests.factories import character_document

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench", password=PASSWORD)
    document = character_document(
        name="Bench pilot",
        homeworld="Regina",
        skills=[
            {"skill": "Pilot", "level": 2, "specialties": ["small craft"]},
            {"skill": "Navigation", "level": 1},
        ],
        traits=[{"type": "PP", "level": "E", "frequency": "O", "name": "Combat experience"}],
    )
    return user, services.create_character(owner=user, document=document)


def _preview_data(character, dex: int) -> dict[str, str]:
    document = character.document
    data = {
        "version": str(character.version),
        "name": document["name"],
        "kind": "pc",
        "budget": "100",
        "species": "human",
        "homeworld": "Regina",
        "terms": "0",
        "rank": "0",
        "one_trait_per_term": "on",
        "skill-0-skill": "Pilot",
        "skill-0-level": "2",
        "skill-0-specialties": "small craft",
        "skill-1-skill": "Navigation",
        "skill-1-level": "1",
        "trait-0-type": "PP",
        "trait-0-name": "Combat experience",
        "trait-0-level": "E",
        "trait-0-frequency": "O",
        **{code: str(level) for code, level in document["attributes"].items()},
    }
    data["DEX"] = str(dex)
    return data


def _throughput(character, quick: bool) -> list[Figure]:
    from urllib.parse import urlencode

    from django.test import Client

    client = Client()
    client.login(username="bench", password=PASSWORD)
    url = f"/characters/{character.pk}/preview/"
    # htmx posts the form urlencoded, as browsers do; the test client would default to multipart.
    bodies = [urlencode(_preview_data(character, dex), doseq=True) for dex in (8, 9)]
    calls = iter(range(10**9))

    def preview() -> None:
        response = client.post(
            url,
            bodies[next(calls) % 2],
            content_type="application/x-www-form-urlencoded",
            HTTP_HX_REQUEST="true",
        )
        assert response.status_code == 200, response.status_code

    def healthz() -> None:
        assert client.get("/healthz").status_code == 200

    def character_list() -> None:
        assert client.get("/characters/").status_code == 200

    per_round, rounds = (50, 3) if quick else (300, 7)
    health = rate(
        "GET /healthz (answered by the first middleware)",
        healthz,
        per_round=per_round * 4,
        rounds=rounds,
    )
    listing = rate(
        "GET /characters/ (logged in, full stack)",
        character_list,
        per_round=per_round,
        rounds=rounds,
    )
    live = rate("POST preview (logged in, htmx)", preview, per_round=per_round, rounds=rounds)
    percent = tuple(100 * p / h for p, h in zip(live.samples, health.samples, strict=True))
    return [
        health,
        listing,
        live,
        Figure("preview as a share of /healthz", "%", percent),
        Figure(
            "preview as a share of /characters/",
            "%",
            tuple(100 * p / c for p, c in zip(live.samples, listing.samples, strict=True)),
        ),
    ]


def _browser_latency(character, quick: bool) -> list[Figure]:
    if not CHROMIUM.exists():
        print(f"  (skipping the browser figure: no Chromium at {CHROMIUM})")
        return []
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.test.testcases import LiveServerThread
    from playwright.sync_api import sync_playwright

    server = LiveServerThread("127.0.0.1", StaticFilesHandler, port=0)
    server.daemon = True
    server.start()
    server.is_ready.wait()
    base = f"http://127.0.0.1:{server.port}"
    samples = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page(base_url=base)
            page.goto("/accounts/login/")
            page.fill("input[name=username]", "bench")
            page.fill("input[name=password]", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_url(f"{base}/")
            page.goto(f"/characters/{character.pk}/edit/")
            # Time in the page itself: from the input event to the moment DEF shows the new value.
            measure = """([dex, expected]) => new Promise(resolve => {
                const input = document.querySelector('input[name=DEX]');
                const start = performance.now();
                const check = () => {
                    const def = document.querySelector('[data-derived=DEF]');
                    const done = def && def.textContent.trim() === expected;
                    if (done) resolve(performance.now() - start);
                    else requestAnimationFrame(check);
                };
                input.value = dex;
                input.dispatchEvent(new Event('input', {bubbles: true}));
                requestAnimationFrame(check);
            })"""
            for index in range(10 if quick else 40):
                dex, expected = ("9", "4") if index % 2 == 0 else ("7", "3")
                samples.append(page.evaluate(measure, [dex, expected]))
            browser.close()
    finally:
        server.terminate()
    return [
        Figure(
            "input to updated DEF in Chromium (incl. 50 ms debounce)",
            "ms",
            tuple(samples),
            higher_is_better=False,
        )
    ]


def run(quick: bool) -> list[Figure]:
    _user, character = _setup()
    return [*_throughput(character, quick), *_browser_latency(character, quick)]

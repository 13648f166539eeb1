"""The builder's live preview: server throughput beside a logged-in view that does nothing,
and edit-to-DEF in Chromium.

Targets: the preview answers at least 70% as many requests per second as the logged-in no-op
view on the same server in the same run (/healthz is answered by the first middleware, so it
says nothing about a view); the browser shows the new DEF within 100 ms (p50) of typing (which
waits 50 ms for a pause) and within 40 ms of a stepper click (which does not). The page's
saving by itself adds nothing to a preview: it is a request of its own after a pause, at most
one on the way per page. The server is gunicorn, as `make serve` runs it, loaded over loopback
by bench.http_load; the preview's in-process time is printed too, as the app's own share. Runs
against a throwaway SQLite database in a temporary FFA_VAR_DIR.
"""

import os

from bench.core import Figure, bench_user, duration, throwaway_database
from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS

PASSWORD = "bench-password"
# One sync worker per core; the load generator shares the cores with them.
SERVER_WORKERS = os.cpu_count() or 2
CONNECTIONS = 4
PREVIEW = "POST preview, logged in, htmx"
NO_OP = "POST logged-in no-op view: + session and user"
ACCESS_CHECK = "POST logged-in view that only finds the character (character_for_user)"


def _setup():
    throwaway_database("builder")
    from characters.builder import services as builder_services
    from tests.factories import character_document

    user = bench_user("builder", "player", password=PASSWORD)
    document = character_document(
        name="Bench pilot",
        homeworld="Regina",
        skills=[
            {"skill": "Pilot", "level": 2, "specialties": ["small craft"]},
            {"skill": "Navigation", "level": 1},
        ],
        traits=[{"type": "PP", "level": "E", "frequency": "O", "name": "Combat experience"}],
    )
    return user, builder_services.create_character(owner=user, document=document)


def _throughput(character, quick: bool) -> list[Figure]:
    """The preview and /healthz under gunicorn, in alternating rounds of the same load.

    Three do-nothing views (bench.urls) sit between them: one behind the middleware with the
    CSRF check and form parsing every POST pays, one that also loads the session and user as
    every logged-in view does, and one that also finds the character through the access helper
    every view of a character calls. They show what share any Django view can reach here.
    """
    import secrets
    from urllib.parse import urlencode

    from django.test import Client

    from bench import http_load
    from bench.server import gunicorn

    client = Client()
    client.login(username=character.owner.get_username(), password=PASSWORD)
    csrf_secret = secrets.token_hex(16)
    headers = {
        "Cookie": f"sessionid={client.cookies['sessionid'].value}; csrftoken={csrf_secret}",
        "X-CSRFToken": csrf_secret,
        "HX-Request": "true",
        "Content-Type": "application/x-www-form-urlencoded",
    }
    # What htmx posts when a player types 9 into DEX: the whole form, naming the edited input.
    from tests.factories import builder_post

    body = urlencode(builder_post(character, DEX="9", edited="DEX"), doseq=True).encode()
    server = f"gunicorn, {SERVER_WORKERS} workers, {CONNECTIONS} connections"
    endpoints = {
        f"GET /healthz ({server})": http_load.prepare("GET", "/healthz"),
        "POST no-op view: middleware, CSRF, form parsing": http_load.prepare(
            "POST", "/bench/no-op/", headers=headers, body=body
        ),
        NO_OP: http_load.prepare("POST", "/bench/logged-in-no-op/", headers=headers, body=body),
        ACCESS_CHECK: http_load.prepare(
            "POST", f"/bench/access-check/{character.pk}/", headers=headers, body=body
        ),
        PREVIEW: http_load.prepare(
            "POST", f"/characters/{character.pk}/preview/", headers=headers, body=body
        ),
    }
    seconds, rounds = (1.0, 3) if quick else (2.0, 7)
    rates: dict[str, list[float]] = {name: [] for name in endpoints}
    from django.conf import settings

    with gunicorn(str(settings.VAR_DIR), workers=SERVER_WORKERS) as port:
        for request in endpoints.values():  # warm up: imports, connections, caches
            http_load.run(port, request, connections=CONNECTIONS, seconds=0.5)
        for _ in range(rounds):
            for name, request in endpoints.items():
                load = http_load.run(port, request, connections=CONNECTIONS, seconds=seconds)
                assert load.failed == 0, (name, load)
                assert load.completed, (name, load)
                rates[name].append(load.requests_per_second)

    def share(of: str) -> tuple[float, ...]:
        return tuple(100 * r / n for r, n in zip(rates[of], rates[NO_OP], strict=True))

    figures = [Figure(name, "req/s", tuple(samples)) for name, samples in rates.items()]
    figures += [
        # The most any view of one stored character can reach: the access check's query alone.
        Figure(
            "  the access check alone as a share of the logged-in no-op", "%", share(ACCESS_CHECK)
        ),
        Figure(
            "  preview as a share of the logged-in no-op view, same server and run",
            "%",
            share(PREVIEW),
            target=70,
        ),
    ]
    return figures


def _in_process(character, quick: bool) -> list[Figure]:
    """The preview's own cost, without a server: Django's test client, one request at a time."""
    from urllib.parse import urlencode

    from django.test import Client

    client = Client()
    client.login(username=character.owner.get_username(), password=PASSWORD)
    url = f"/characters/{character.pk}/preview/"
    from tests.factories import builder_post

    bodies = [
        urlencode(builder_post(character, DEX=str(dex), edited="DEX"), doseq=True) for dex in (8, 9)
    ]
    calls = iter(range(10**9))

    def preview() -> None:
        response = client.post(
            url,
            bodies[next(calls) % 2],
            content_type="application/x-www-form-urlencoded",
            HTTP_HX_REQUEST="true",
        )
        assert response.status_code == 200, response.status_code

    rounds = 5 if quick else 15
    return [
        duration("POST preview in-process (test client)", preview, rounds=rounds * 20, warmup=20)
    ]


def _browser_latency(character, quick: bool) -> list[Figure]:
    """From an edit in Chromium to the new DEF on the page, served by the production server
    (Django's test server answers loopback requests tens of milliseconds late: its separate
    writes of headers and body meet the peer's delayed acknowledgement)."""
    if not CHROMIUM.exists():
        print(f"  (skipping the browser figure: no Chromium at {CHROMIUM})")
        return []
    from playwright.sync_api import sync_playwright

    from bench.server import gunicorn

    samples: dict[str, list[float]] = {"type": [], "step": []}
    from django.conf import settings

    with gunicorn(str(settings.VAR_DIR), workers=SERVER_WORKERS) as port:
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page(base_url=base)
            page.goto("/accounts/login/")
            page.fill("input[name=username]", character.owner.get_username())
            page.fill("input[name=password]", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_url(f"{base}/")
            page.goto(f"/characters/{character.pk}/edit/")
            page.wait_for_load_state("load")
            # Time in the page itself: from the edit to the moment DEF shows the new value.
            # Typing sets DEX and waits for a pause; a stepper click raises or lowers it at once.
            measure = """([how, dex, expected, up]) => new Promise(resolve => {
                const input = document.querySelector('input[name=DEX]');
                const step = document.querySelector(`button[value="step:DEX:${up ? 1 : -1}"]`);
                const start = performance.now();
                const check = () => {
                    const def = document.querySelector('[data-derived=DEF]');
                    const done = def && def.textContent.trim() === expected;
                    if (done) resolve(performance.now() - start);
                    else requestAnimationFrame(check);
                };
                if (how === 'type') {
                    input.value = dex;
                    input.dispatchEvent(new Event('input', {bubbles: true}));
                } else {
                    step.click();
                }
                requestAnimationFrame(check);
            })"""
            # From DEX 7 (DEF 3): typing goes to 9 and back, a step to 8 and back (DEF 4).
            for how in ("type", "step"):
                page.fill("input[name=DEX]", "7")
                page.wait_for_timeout(300)
                for index in range(10 if quick else 40):
                    up = index % 2 == 0
                    dex = ("9" if how == "type" else "8") if up else "7"
                    expected = "4" if up else "3"
                    samples[how].append(page.evaluate(measure, [how, dex, expected, up]))
            browser.close()
    return [
        Figure(
            "typed DEX to updated DEF in Chromium (incl. 50 ms debounce)",
            "ms",
            tuple(samples["type"]),
            higher_is_better=False,
            target=100,
        ),
        Figure(
            "stepper click to updated DEF in Chromium (no debounce)",
            "ms",
            tuple(samples["step"]),
            higher_is_better=False,
            target=40,
        ),
    ]


def run(quick: bool) -> list[Figure]:
    _user, character = _setup()
    return [
        *_throughput(character, quick),
        *_in_process(character, quick),
        *_browser_latency(character, quick),
    ]

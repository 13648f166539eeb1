"""The builder: its save as the player edits (the one request the page makes by itself), on
the server and in process, and what the player sees in Chromium.

Reported on gunicorn with two sync workers, as `make serve` runs them, loaded over loopback
by bench.http_load: requests per second of the save beside /healthz, a logged-in view that
does nothing and one that only finds the character (the access check every view of a
character makes), for scale; and the save's in-process time (median). The save once had a
target of 70% of the logged-in no-op's rate, retired (issue 35): the access check alone
reaches about that, so no view that reads a form and draws figures can.

Targets in Chromium: the new DEF shows within 100 ms (p50) of typing (which waits 50 ms for
a pause) and within 40 ms of a stepper click; a row shows within 50 ms of Enter in the add
box, or of a click on the trait grid, whatever the network (measured with 3 s of latency
added to every request by Chromium's network emulation: the row comes from the page, not
the server). Runs against a throwaway SQLite database in a temporary FFA_VAR_DIR.
"""

from bench.core import Figure, bench_user, duration, throwaway_database
from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS

PASSWORD = "bench-password"
SERVER_WORKERS = 2
CONNECTIONS = 4
SAVE = "POST the builder's save (htmx), logged in"
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
    """The save and /healthz under gunicorn, in alternating rounds of the same load.

    Three do-nothing views (bench.urls) sit between them: one behind the middleware with the
    CSRF check and form parsing every POST pays, one that also loads the session and user as
    every logged-in view does, and one that also finds the character through the access helper
    every view of a character calls. They show what share any Django view can reach here. The
    saves alternate DEX 8 and 9, each of one sitting, so each one writes.
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
    # What the page posts when a player types into DEX: the whole form, of one sitting.
    from tests.factories import builder_post

    sitting = {"editing_session": "bench"}
    bodies = [
        urlencode(builder_post(character, DEX=dex, **sitting), doseq=True).encode()
        for dex in ("8", "9")
    ]
    body = bodies[0]  # what the no-op views read
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
        SAVE: tuple(
            http_load.prepare("POST", f"/characters/{character.pk}/edit/", headers=headers, body=b)
            for b in bodies
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
        Figure("  the save as a share of the logged-in no-op view", "%", share(SAVE)),
    ]
    return figures


def _in_process(character, quick: bool) -> list[Figure]:
    """The save's own cost, without a server: Django's test client, one request at a time."""
    from urllib.parse import urlencode

    from django.test import Client

    client = Client()
    client.login(username=character.owner.get_username(), password=PASSWORD)
    url = f"/characters/{character.pk}/edit/"
    from tests.factories import builder_post

    bodies = [
        urlencode(builder_post(character, DEX=str(dex), editing_session="bench"), doseq=True)
        for dex in (8, 9)
    ]
    calls = iter(range(10**9))

    def save() -> None:
        response = client.post(
            url,
            bodies[next(calls) % 2],
            content_type="application/x-www-form-urlencoded",
            HTTP_HX_REQUEST="true",
        )
        assert response.status_code == 200, response.status_code

    rounds = 5 if quick else 15
    return [duration("POST the save in-process (test client)", save, rounds=rounds * 20, warmup=20)]


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
            samples |= _rows_on_a_slow_network(page, quick)
            browser.close()
    return [
        Figure(
            "a skill's row after Enter in the add box, 3 s of network latency",
            "ms",
            tuple(samples["skill row"]),
            higher_is_better=False,
            target=50,
        ),
        Figure(
            "a trait's row after a click on the trait grid, 3 s of network latency",
            "ms",
            tuple(samples["trait row"]),
            higher_is_better=False,
            target=50,
        ),
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


# From a key press or a click (heard first, as the page's capture) to the row it adds, in the
# page's own clock.
_ROW_TIMER = """() => {
    window.rowTimes = [];
    let start = 0;
    const began = () => { start = performance.now(); };
    addEventListener("keydown", (event) => event.key === "Enter" && began(), true);
    addEventListener("pointerdown", began, true);
    new MutationObserver((changes) => {
        const added = changes.some((change) => [...change.addedNodes].some(
            (node) => node.matches?.("[data-skill-row], [data-trait-row]")));
        if (added) window.rowTimes.push(performance.now() - start);
    }).observe(document.getElementById("builder"), { childList: true, subtree: true });
}"""


def _rows_on_a_slow_network(page, quick: bool) -> dict[str, list[float]]:
    """Rows added with 3 s of latency on every request (Chromium's network emulation)."""
    session = page.context.new_cdp_session(page)
    session.send("Network.enable")
    conditions = {"offline": False, "latency": 3000, "downloadThroughput": -1}
    session.send("Network.emulateNetworkConditions", conditions | {"uploadThroughput": -1})
    page.evaluate(_ROW_TIMER)
    names = ["Pilot", "Medical", "Streetwise", "Navigation", "Vacc Suit", "Broker", "Steward"]
    names = names[:3] if quick else names
    box = page.locator("[data-add=skill]")
    for name in names:
        box.fill(name)
        box.press("Enter")
    page.wait_for_function(f"window.rowTimes.length >= {len(names)}")
    skill_rows = page.evaluate("window.rowTimes.splice(0)")
    cells = page.locator("button.grid-cell")
    for index in range(3 if quick else 7):
        cells.nth(index).click()
    page.wait_for_function(f"window.rowTimes.length >= {3 if quick else 7}")
    trait_rows = page.evaluate("window.rowTimes.splice(0)")
    session.send(
        "Network.emulateNetworkConditions", conditions | {"latency": 0, "uploadThroughput": -1}
    )
    return {"skill row": skill_rows, "trait row": trait_rows}


def run(quick: bool) -> list[Figure]:
    _user, character = _setup()
    return [
        *_throughput(character, quick),
        *_in_process(character, quick),
        *_browser_latency(character, quick),
    ]

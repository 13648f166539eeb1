"""Requests per second through the whole Django stack (middleware, URLs, views, templates).

Uses Django's test client in-process, so the figures measure the app, not a network or an
app server. No database is touched: neither page reads or writes one for an anonymous visitor.
"""

from django.test import Client

from bench.core import Figure, rate, setup_django


def run(quick: bool) -> list[Figure]:
    setup_django()
    client = Client()
    per_round, rounds = (200, 5) if quick else (2000, 9)

    def healthz() -> None:
        response = client.get("/healthz")
        assert response.status_code == 200, response.status_code

    def landing() -> None:
        response = client.get("/")
        assert response.status_code == 200, response.status_code

    return [
        rate("GET /healthz", healthz, per_round=per_round, rounds=rounds, unit="req/s"),
        rate(
            "GET / (anonymous landing page)",
            landing,
            per_round=per_round // 10,
            rounds=rounds,
            unit="req/s",
        ),
    ]

"""The Redis cache fails soft (ffa_site.cache): with Redis unreachable every read is a miss and
every write is dropped, so that a page or a PDF never fails for it, and a process leaves Redis
alone for a few seconds rather than waiting on it for every call. Against a closed port on
loopback, so it needs no Redis; the real one is in test_scale_out."""

import socket
import time

import pytest

from ffa_site import cache as fail_soft


@pytest.fixture
def unreachable() -> fail_soft.FailSoftRedisCache:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return fail_soft.FailSoftRedisCache(
        f"redis://127.0.0.1:{port}/0",
        {"KEY_PREFIX": "ffa-test", "OPTIONS": {"socket_connect_timeout": 0.5}},
    )


def test_an_unreachable_redis_answers_as_an_empty_cache(unreachable, caplog):
    assert unreachable.get("sheet", "missing") == "missing"
    assert unreachable.get_many(["a", "b"]) == {}
    assert unreachable.has_key("sheet") is False
    assert unreachable.set("sheet", b"%PDF") is None
    assert unreachable.set_many({"a": 1}) == []
    assert unreachable.delete("sheet") is False
    assert unreachable.touch("sheet") is False
    unreachable.delete_many(["a"])
    unreachable.clear()
    # A count starts again (so a limit lets this one through), and a turn is granted.
    assert unreachable.incr("signups", 3) == 3
    assert unreachable.add("rendering", True) is True
    assert "carrying on without it" in caplog.text


def test_after_a_failure_redis_is_left_alone_for_a_few_seconds(unreachable, monkeypatch):
    calls = []
    real_get = fail_soft.RedisCache.get

    def counting_get(self, *args, **kwargs):
        calls.append(1)
        return real_get(self, *args, **kwargs)

    monkeypatch.setattr(fail_soft.RedisCache, "get", counting_get)
    unreachable.get("sheet")
    unreachable.get("sheet")
    assert len(calls) == 1

    now = time.monotonic()
    monkeypatch.setattr(time, "monotonic", lambda: now + fail_soft.RETRY_SECONDS + 0.1)
    unreachable.get("sheet")
    assert len(calls) == 2

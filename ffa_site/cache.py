"""The Redis cache of several app servers (FFA_REDIS_URL), failing soft.

Redis holds what the app servers share but can do without: rendered PDFs, the verdicts on PDFs
that ran past their budget, the signup, login and PDF counts. When it is down or unreachable,
every read is a miss and every write is dropped (a warning is logged), so the site carries on:
PDFs are rendered again, and the limits counted there let everything through until it is back.
After a failure a process leaves Redis alone for RETRY_SECONDS rather than waiting on it again
for every call; the client's short timeouts (settings) bound the wait before that.
"""

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)
RETRY_SECONDS = 5.0
T = TypeVar("T")


class FailSoftRedisCache(RedisCache):
    """Django's Redis cache, where a Redis failure answers as an empty cache would."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._down_until = 0.0

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None):
        # As if stored: what counts on it (a render's turn) goes ahead.
        return self._fail_soft(True, super().add, key, value, timeout, version)

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._fail_soft(default, super().get, key, default, version)

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None):
        return self._fail_soft(None, super().set, key, value, timeout, version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        return self._fail_soft(False, super().touch, key, timeout, version)

    def delete(self, key: Any, version: Any = None) -> bool:
        return self._fail_soft(False, super().delete, key, version)

    def get_many(self, keys: Any, version: Any = None) -> dict[Any, Any]:
        return self._fail_soft({}, super().get_many, keys, version)

    def has_key(self, key: Any, version: Any = None) -> bool:
        return self._fail_soft(False, super().has_key, key, version)

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        # As if the count started now: a limit counted here lets this one through.
        return self._fail_soft(delta, super().incr, key, delta, version)

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None):
        return self._fail_soft([], super().set_many, data, timeout, version)

    def delete_many(self, keys: Any, version: Any = None) -> None:
        return self._fail_soft(None, super().delete_many, keys, version)

    def clear(self) -> None:
        return self._fail_soft(None, super().clear)

    def _fail_soft(self, fallback: T, operation: Callable[..., T], *args: Any) -> T:
        if time.monotonic() < self._down_until:
            return fallback
        try:
            return operation(*args)
        except RedisError as error:
            self._down_until = time.monotonic() + RETRY_SECONDS
            logger.warning(
                "Redis cache %s unavailable (%s); carrying on without it for %g s.",
                self.key_prefix,
                error,
                RETRY_SECONDS,
            )
            return fallback

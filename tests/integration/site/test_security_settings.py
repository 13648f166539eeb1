"""Settings that refuse to start: an environment name that is not exactly one of the two, and a
production secret key that `check --deploy` would call weak (security.W009)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management.utils import get_random_secret_key

ROOT = Path(__file__).resolve().parents[3]
STRONG_KEY = get_random_secret_key() + get_random_secret_key()
PRODUCTION_ENV = {
    "DJANGO_ENV": "production",
    "DJANGO_SECRET_KEY": STRONG_KEY,
    "DJANGO_ALLOWED_HOSTS": "ffa.example.com",
}


def manage_check(env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    """`manage.py check` in a fresh process with exactly these DJANGO_* variables."""
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DJANGO_") and k not in {"SECRET_KEY", "ALLOWED_HOSTS"}
    }
    base["FFA_VAR_DIR"] = str(tmp_path / "var")
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=base | env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize("value", ["Production", "prod", "staging", "Development", ""])
def test_an_unknown_django_env_refuses_to_start_and_names_the_value(tmp_path, value):
    result = manage_check({"DJANGO_ENV": value}, tmp_path)

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert f"got {value!r}" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("env", [{}, {"DJANGO_ENV": "development"}], ids=["unset", "development"])
def test_development_starts_when_named_or_when_nothing_is_named(tmp_path, env):
    result = manage_check(env, tmp_path)

    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("key", "reason"),
    [
        (STRONG_KEY[:49], "shorter than 50 characters"),
        ("abcd" * 20, "fewer than 5 different characters"),
        ("django-insecure-" + STRONG_KEY, "starts with 'django-insecure-'"),
    ],
    ids=["short", "repetitive", "insecure-prefix"],
)
def test_production_refuses_a_secret_key_that_check_deploy_calls_weak(tmp_path, key, reason):
    result = manage_check(PRODUCTION_ENV | {"DJANGO_SECRET_KEY": key}, tmp_path)

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "DJANGO_SECRET_KEY is too weak for production" in result.stderr
    assert reason in result.stderr
    assert key not in result.stderr  # a refused key is still a secret: never printed


@pytest.mark.slow
def test_production_starts_with_a_strong_secret_key(tmp_path):
    result = manage_check(PRODUCTION_ENV, tmp_path)

    assert result.returncode == 0, result.stderr


def test_the_upload_limits_hold_the_largest_import_and_no_more():
    # The import refuses a document over MAX_IMPORT_BYTES with a message; the site refuses a
    # request that could not be such an import, before reading it.
    assert settings.MAX_IMPORT_BYTES < settings.MAX_REQUEST_BYTES
    assert settings.MAX_REQUEST_BYTES <= 2 * settings.MAX_IMPORT_BYTES
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == settings.MAX_REQUEST_BYTES
    assert settings.FILE_UPLOAD_MAX_MEMORY_SIZE == settings.MAX_REQUEST_BYTES

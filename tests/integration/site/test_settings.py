"""Settings: production refuses unsafe configurations and passes `check --deploy` cleanly."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management.utils import get_random_secret_key
from django.db import connection

from ffa_site.settings import env_bool, env_int, env_list, env_str

ROOT = Path(__file__).resolve().parents[3]
PRODUCTION_ENV = {
    "DJANGO_ENV": "production",
    "DJANGO_SECRET_KEY": get_random_secret_key() + get_random_secret_key(),
    "DJANGO_ALLOWED_HOSTS": "ffa.example.com",
}


def manage(*args: str, env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DJANGO_") and k not in {"SECRET_KEY", "ALLOWED_HOSTS"}
    }
    base["FFA_VAR_DIR"] = str(tmp_path / "var")
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=base | env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_production_settings_pass_check_deploy_without_any_warning(tmp_path):
    result = manage(
        "check", "--deploy", "--fail-level", "DEBUG", env=PRODUCTION_ENV, tmp_path=tmp_path
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("missing", ["DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS"])
def test_production_refuses_to_start_without_its_secret_and_hosts(tmp_path, missing):
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != missing}

    result = manage("check", env=env, tmp_path=tmp_path)

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert missing in result.stderr


@pytest.mark.slow
def test_production_collects_static_files_into_a_compressed_manifest(tmp_path):
    env = PRODUCTION_ENV | {"DJANGO_STATIC_ROOT": str(tmp_path / "static")}

    result = manage("collectstatic", "--noinput", env=env, tmp_path=tmp_path)

    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "static" / "staticfiles.json").exists()
    assert list((tmp_path / "static" / "css").glob("site.*.css.gz"))
    assert list((tmp_path / "static" / "django_htmx").glob("htmx-2.min.*.js"))


def test_debug_stays_off_unless_asked_for():
    # make run sets DJANGO_DEBUG=1; the tests (and production) must run without DEBUG.
    assert django_settings.DEBUG is False


def test_sessions_are_stored_in_the_database_so_app_servers_need_no_sticky_sessions():
    assert django_settings.SESSION_ENGINE == "django.contrib.sessions.backends.db"


def test_database_url_selects_the_database(db):
    expected = (
        "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"
    )
    assert connection.vendor == expected


def test_env_helpers_read_typed_values(monkeypatch):
    monkeypatch.setenv("FFA_T_BOOL", "Yes")
    monkeypatch.setenv("FFA_T_INT", " 42 ")
    monkeypatch.setenv("FFA_T_LIST", "a.example, ,b.example,")
    monkeypatch.setenv("FFA_T_STR", "  text ")

    assert env_bool("FFA_T_BOOL") is True
    assert env_bool("FFA_T_UNSET", default=True) is True
    assert env_int("FFA_T_INT", 0) == 42
    assert env_list("FFA_T_LIST") == ["a.example", "b.example"]
    assert env_list("FFA_T_UNSET", ["x"]) == ["x"]
    assert env_str("FFA_T_STR") == "text"


@pytest.mark.parametrize(("helper", "value"), [(env_bool, "maybe"), (env_int, "ten")])
def test_env_helpers_reject_values_they_cannot_read(monkeypatch, helper, value):
    monkeypatch.setenv("FFA_T_BAD", value)

    with pytest.raises(ImproperlyConfigured, match="FFA_T_BAD"):
        helper("FFA_T_BAD", 0) if helper is env_int else helper("FFA_T_BAD")


@pytest.mark.slow
def test_a_redis_url_puts_the_pdf_cache_in_redis_for_every_app_server(tmp_path):
    result = manage(
        "shell",
        "--verbosity",
        "0",
        "-c",
        "from django.conf import settings; print(settings.CACHES['pdf']['BACKEND'], "
        "settings.CACHES['pdf']['LOCATION'])",
        env={"FFA_REDIS_URL": "redis://127.0.0.1:6379/3"},
        tmp_path=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "ffa_site.cache.FailSoftRedisCache",
        "redis://127.0.0.1:6379/3",
    ]


def test_production_names_every_cookie_with_the_host_prefix(tmp_path):
    result = manage(
        "shell",
        "--verbosity",
        "0",
        "-c",
        "from django.conf import settings as s; print(s.SESSION_COOKIE_NAME, s.CSRF_COOKIE_NAME, "
        "s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SESSION_COOKIE_DOMAIN, "
        "s.CSRF_COOKIE_DOMAIN, s.SESSION_COOKIE_PATH, s.CSRF_COOKIE_PATH, s.MESSAGE_STORAGE)",
        env=PRODUCTION_ENV,
        tmp_path=tmp_path,
    )

    assert result.returncode == 0, result.stderr
    # A __Host- cookie is kept only when secure, for the path /, without a Domain; messages
    # wait in the session rather than in a cookie of their own.
    assert result.stdout.split() == [
        "__Host-sessionid",
        "__Host-csrftoken",
        "True",
        "True",
        "None",
        "None",
        "/",
        "/",
        "django.contrib.messages.storage.session.SessionStorage",
    ]


@pytest.mark.django_db
def test_a_message_sets_no_cookie_of_its_own(client):
    password = "jump-2-to-regina"
    data = {"username": "newcomer", "password1": password, "password2": password}
    response = client.post("/accounts/signup/", data)  # "Welcome aboard, newcomer."

    assert response.status_code == 302
    assert set(response.cookies) == {
        django_settings.SESSION_COOKIE_NAME,
        django_settings.CSRF_COOKIE_NAME,  # a login rotates the CSRF secret
    }
    assert "Welcome aboard" in client.get(response["Location"]).content.decode()


@pytest.mark.django_db
def test_the_embedded_database_logs_ahead_and_syncs_at_checkpoints():
    """The builder saves as the player edits: on SQLite a commit's own syncs were most of a
    save's time (make bench). PostgreSQL keeps its own settings."""
    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL: nothing of SQLite's to check")
    with connection.cursor() as cursor:
        journal = cursor.execute("PRAGMA journal_mode").fetchone()[0]
        synchronous = cursor.execute("PRAGMA synchronous").fetchone()[0]
    assert (journal, synchronous) == ("wal", 1)  # 1: NORMAL

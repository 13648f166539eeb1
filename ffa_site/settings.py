"""Settings for the Far Future Action site: one module, configured from the environment.

Three ways to run:

- local (`make run`): SQLite under var/, DEBUG on (make run sets DJANGO_DEBUG=1);
- tests: the same defaults, DEBUG off;
- production (DJANGO_ENV=production): needs DJANGO_SECRET_KEY and DJANGO_ALLOWED_HOSTS, serves
  static files through WhiteNoise, and passes `manage.py check --deploy` without warnings.

DATABASE_URL (postgres://user:password@host:port/name) switches to PostgreSQL in any of them.
"""

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from ffa_site.workers import pdf_render_slots

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    """The variable's value with surrounding blanks removed, or the default when unset."""
    value = os.environ.get(name)
    return default if value is None else value.strip()


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of 1/0, true/false, yes/no, on/off; got {value!r}."
    )


def env_int(name: str, default: int) -> int:
    value = env_str(name)
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer; got {value!r}.") from None


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    """A comma-separated list, blanks dropped."""
    value = env_str(name)
    if not value:
        return list(default or [])
    return [item.strip() for item in value.split(",") if item.strip()]


def _required(names: tuple[str, ...], why: str) -> str:
    for name in names:
        if value := env_str(name):
            return value
    raise ImproperlyConfigured(f"Set {names[0]} ({why}); production refuses to start without it.")


# Exactly these two: anything else (a capital letter, "prod", a typo) refuses to start rather
# than quietly running the development settings, with their public secret key, in production.
ENVIRONMENTS = ("production", "development")
DJANGO_ENV = env_str("DJANGO_ENV", "development")
if DJANGO_ENV not in ENVIRONMENTS:
    raise ImproperlyConfigured(
        f"DJANGO_ENV must be 'production' or 'development' (or unset, for development); "
        f"got {os.environ['DJANGO_ENV']!r}."
    )
PRODUCTION = DJANGO_ENV == "production"

# What `check --deploy` calls a weak key (security.W009): production refuses one outright.
SECRET_KEY_MIN_LENGTH = 50
SECRET_KEY_MIN_UNIQUE_CHARACTERS = 5
SECRET_KEY_INSECURE_PREFIX = "django-insecure-"


def _strong_secret_key(names: tuple[str, ...]) -> str:
    key = _required(names, "a long random string, the same on every app server")
    weakness = (
        f"it starts with {SECRET_KEY_INSECURE_PREFIX!r}"
        if key.startswith(SECRET_KEY_INSECURE_PREFIX)
        else f"it is shorter than {SECRET_KEY_MIN_LENGTH} characters"
        if len(key) < SECRET_KEY_MIN_LENGTH
        else f"it has fewer than {SECRET_KEY_MIN_UNIQUE_CHARACTERS} different characters"
        if len(set(key)) < SECRET_KEY_MIN_UNIQUE_CHARACTERS
        else ""
    )
    if weakness:
        raise ImproperlyConfigured(
            f"{names[0]} is too weak for production: {weakness}. Generate one with "
            "`python -c 'from django.core.management.utils import get_random_secret_key as k; "
            "print(k())'`."
        )
    return key


if PRODUCTION:
    SECRET_KEY = _strong_secret_key(("DJANGO_SECRET_KEY", "SECRET_KEY"))
    ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS") or env_list("ALLOWED_HOSTS")
    if not ALLOWED_HOSTS:
        _required(("DJANGO_ALLOWED_HOSTS", "ALLOWED_HOSTS"), "comma-separated host names served")
    DEBUG = False
else:
    # A fixed key is fine for a local checkout; production refuses to run without its own.
    SECRET_KEY = env_str("DJANGO_SECRET_KEY") or "django-insecure-local-only-ffa-do-not-deploy"
    ALLOWED_HOSTS = env_list(
        "DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"]
    )
    DEBUG = env_bool("DJANGO_DEBUG", False)

CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")
# A tab left open while the session changed in another is refused in the site's own style.
CSRF_FAILURE_VIEW = "ffa_site.errors.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials.apps.SimpleAppConfig",
    "axes",
    "csp",
    "characters",
]

MIDDLEWARE = [
    # First, so load balancers get their answer before host checks, HTTPS redirects or sessions.
    "ffa_site.middleware.healthz",
    "django.middleware.security.SecurityMiddleware",
    # Before anything that may answer, so that every page, the 413 and 429 ones too, has them.
    "csp.middleware.CSPMiddleware",
    "ffa_site.middleware.permissions_policy",
    # Before sessions and the CSRF check, which read the body: an oversized one never is.
    "ffa_site.middleware.refuse_oversized_bodies",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "ffa_site.middleware.private_for_users",
    "ffa_site.throttling.throttle_signups",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "ffa_site.middleware.htmx_to_the_login_page",
    # A stored document the engine cannot read is a page saying so, never a server error.
    "ffa_site.middleware.UnreadableStoredDocument",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

if PRODUCTION:
    # Static files from the collected, hashed and compressed copies; locally `runserver` (DEBUG)
    # and the tests' live server serve them straight from static/ and the apps.
    MIDDLEWARE.insert(
        MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
        "whitenoise.middleware.WhiteNoiseMiddleware",
    )

ROOT_URLCONF = "ffa_site.urls"
WSGI_APPLICATION = "ffa_site.wsgi.application"

_template_loaders = [
    "django.template.loaders.filesystem.Loader",
    "django.template.loaders.app_directories.Loader",
]
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            "loaders": [
                (
                    "template_partials.loader.Loader",
                    [("django.template.loaders.cached.Loader", _template_loaders)],
                )
            ],
        },
    }
]

# --- Database -------------------------------------------------------------------------------
# Embedded default: a SQLite file under var/ (git-ignored). DATABASE_URL selects PostgreSQL.
VAR_DIR = Path(env_str("FFA_VAR_DIR") or BASE_DIR / "var")
DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    DATABASES = {
        "default": dj_database_url.parse(
            DATABASE_URL, conn_max_age=env_int("DJANGO_CONN_MAX_AGE", 60), conn_health_checks=True
        )
    }
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(VAR_DIR / "ffa.sqlite3"),
            # Write-ahead logging, synced at checkpoints rather than at every commit: the builder
            # saves as the player edits, and a commit's own disk syncs were most of a save's time
            # (make bench: twice the saves per second, the stepper's new DEF 42 -> 32 ms). A
            # power cut may lose the last commits, never the file: a deployment that cannot
            # afford that uses PostgreSQL (DATABASE_URL).
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            # Reopening SQLite per request re-reads the schema before the first query, which
            # costs more than the builder preview's own work; keep the connection.
            "CONN_MAX_AGE": env_int("DJANGO_CONN_MAX_AGE", 600),
            "CONN_HEALTH_CHECKS": True,
            # Tests use a file too: SQLite's shared in-memory database answers "table is
            # locked" at once where a file waits its turn, so the browser tests' concurrent
            # saves and previews would fail in a way no deployment does.
            "TEST": {"NAME": VAR_DIR / "test-ffa.sqlite3"},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Caches ---------------------------------------------------------------------------------
# Rendered PDF sheets, by content ("pdf"), and the signup throttle's counters ("throttle"). By
# default both are files under FFA_VAR_DIR, shared by every worker process of this server (a
# sheet rendered by one is served from the cache by all; every worker counts signups together).
# FFA_REDIS_URL (redis://host:6379/0) puts them in Redis, shared by every app server as well.
REDIS_URL = env_str("FFA_REDIS_URL")
PDF_CACHE_DAYS = 7
# How long one PDF, a sheet or a whole party, may take to render before it is stopped and the
# request gets a 503: the largest legal sheet takes about a second, and the budget stays well
# under gunicorn's worker timeout (ffa_site.workers), which would kill the worker instead.
PDF_TIME_BUDGET_SECONDS = 10.0
# A PDF stopped by the budget is refused at once, without rendering, for this long after.
PDF_REFUSAL_MEMORY_SECONDS = 15 * 60
# Rendering time one user (or, through a share link, one address) may take in a window of
# time: a PDF from the cache costs nothing, the first PDF of a window always renders, and an
# ordinary sheet takes a fraction of a second (characters.pdf.guard).
PDF_RENDER_SECONDS_PER_USER = 30
PDF_RENDER_WINDOW_SECONDS = 10 * 60
# Renders at once on one app server (ffa_site.workers): the rest of it answers the pages.
PDF_RENDER_SLOTS = pdf_render_slots()


# How long an app server waits on Redis before carrying on without it (ffa_site.cache).
REDIS_TIMEOUT_SECONDS = 0.5


def _shared_cache(name: str, *, max_entries: int, **settings: Any) -> dict[str, Any]:
    if REDIS_URL:
        # Fails soft: with Redis down, a miss and a dropped write, never a 500. Redis evicts
        # by its own policy (maxmemory), so there is no entry count to give it.
        return {
            "BACKEND": "ffa_site.cache.FailSoftRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": f"ffa-{name}",
            "OPTIONS": {
                "socket_connect_timeout": REDIS_TIMEOUT_SECONDS,
                "socket_timeout": REDIS_TIMEOUT_SECONDS,
            },
            **settings,
        }
    return {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(VAR_DIR / "cache" / name),
        "OPTIONS": {"MAX_ENTRIES": max_entries},
        **settings,
    }


CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "ffa"},
    "pdf": _shared_cache("pdf", max_entries=500, TIMEOUT=PDF_CACHE_DAYS * 24 * 3600),
    # Counters and the addresses accounts have logged in from: many small entries.
    "throttle": _shared_cache("throttle", max_entries=5000),
}

# --- Auth and sessions ----------------------------------------------------------------------
# Sessions live in the database, so any app server behind the load balancer can serve any request.
SESSION_ENGINE = "django.contrib.sessions.backends.db"
# At least 12 characters (ASVS 2.1.1), checked when a password is chosen, never at login.
PASSWORD_MIN_LENGTH = 12
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": PASSWORD_MIN_LENGTH},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Login throttling (django-axes): the first backend refuses a login from a locked-out account
# or address before the password is even hashed; the second checks the password.
AUTHENTICATION_BACKENDS = [
    "ffa_site.throttling.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Failures are kept in the database, so every worker and app server sees the same count.
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
# Five wrong passwords for one account from one address, or from one address over any accounts,
# lock that pair or that address out for 15 minutes after the last failure: the site login, and
# the admin's alike. Never the account itself: a stranger's guesses would lock its owner out
# everywhere. An admin lifts a lockout sooner with `manage.py axes_reset_ip ADDRESS`.
AXES_FAILURE_LIMIT = 5
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_COOLOFF_TIME = timedelta(minutes=15)
# A refused attempt checks no password: it neither counts as a failure nor extends a lockout.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# Guesses at one account from many addresses: past this many failures within the cool-off time,
# each attempt from an address the account has not logged in from (within the days below)
# waits twice as long as the one before (ffa_site.throttling.login_wait).
LOGIN_SLOWDOWN_AFTER = 10
LOGIN_KNOWN_ADDRESS_DAYS = 60
# A success does not wipe the count: else a guesser's own account would reset its address's.
AXES_RESET_ON_SUCCESS = False
AXES_CLIENT_IP_CALLABLE = "ffa_site.throttling.client_address"
AXES_LOCKOUT_CALLABLE = "ffa_site.throttling.locked_out"
# Only the failures are kept: a row per successful login would be a table without a bound.
AXES_DISABLE_ACCESS_LOG = True
# Proxies in front of the app that append the client's address to X-Forwarded-For (1 behind
# one load balancer). 0 trusts no header: every address is the connection's own.
TRUSTED_PROXY_COUNT = env_int("FFA_TRUSTED_PROXY_COUNT", 0)
# Signups from one address: at most this many posts of the signup form per hour.
SIGNUP_LIMIT_PER_HOUR = 10

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
# Messages wait in the session: no cookie of their own, so every cookie the site sets in
# production is a __Host- one (below).
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"

# --- E-mail: the notice sent when a password changes -------------------------------------------
# Printed to the console (the server's log) unless DJANGO_EMAIL_BACKEND says otherwise, e.g.
# django.core.mail.backends.smtp.EmailBackend with the DJANGO_EMAIL_* settings below.
EMAIL_BACKEND = env_str("DJANGO_EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env_str("DJANGO_EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("DJANGO_EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("DJANGO_EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("DJANGO_EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("DJANGO_EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = env_str("DJANGO_DEFAULT_FROM_EMAIL", "webmaster@localhost")

# --- Internationalisation -------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files ---------------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("DJANGO_STATIC_ROOT") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# --- Request bodies -------------------------------------------------------------------------
# The largest thing anyone sends is a character document to import, at most MAX_IMPORT_BYTES
# (characters/character_views.py refuses a larger file with a message saying so; a test keeps
# the two equal). A body that could not hold it plus the form around it is refused with 413
# from its Content-Length alone, before a byte of it is read (ffa_site.middleware).
MAX_IMPORT_BYTES = 1_000_000
MAX_REQUEST_BYTES = MAX_IMPORT_BYTES + 100_000
# Form fields alone (a builder form is a few kB) and files kept in memory, never on disk: the
# request limit above already bounds both.
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BYTES

# --- Security -------------------------------------------------------------------------------
X_FRAME_OPTIONS = "DENY"
# Permissions-Policy (ffa_site.middleware.permissions_policy): browser features no page of the
# site uses, refused to it and to anything it could ever embed.
PERMISSIONS_POLICY_REFUSED = (
    "accelerometer",
    "autoplay",
    "browsing-topics",
    "camera",
    "display-capture",
    "geolocation",
    "gyroscope",
    "magnetometer",
    "microphone",
    "midi",
    "payment",
    "serial",
    "usb",
)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
# Content-Security-Policy: the site's own scripts, styles, fonts and images and nothing else;
# no inline script or style (htmx is told not to inject its indicator style, base.html), no
# eval (htmx's trigger filters are off with it), no plugins, no framing, forms post only here.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
if PRODUCTION:
    # TLS ends at the load balancer, which must set X-Forwarded-Proto (and strip it from clients).
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # The __Host- prefix: browsers keep such a cookie only if it is secure, for the whole site
    # and for this host alone, so no subdomain or plain-HTTP page can plant or overwrite one.
    SESSION_COOKIE_NAME = "__Host-sessionid"
    CSRF_COOKIE_NAME = "__Host-csrftoken"

# --- Logging: everything worth knowing goes to stderr, where gunicorn and systemd collect it ---
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("DJANGO_LOG_LEVEL", "WARNING")},
}

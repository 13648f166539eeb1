"""The site's settings with the benchmark's extra views mounted (see bench.urls)."""

from ffa_site.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"

# The browser figures load the builder from gunicorn too: WhiteNoise serves the static files
# as in production, from the source folders rather than a collectstatic copy.
if "whitenoise.middleware.WhiteNoiseMiddleware" not in MIDDLEWARE:  # noqa: F405
    MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")  # noqa: F405
WHITENOISE_USE_FINDERS = True

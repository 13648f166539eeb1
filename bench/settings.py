"""The site's settings with the benchmark's extra views mounted (see bench.urls)."""

from ffa_site.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"

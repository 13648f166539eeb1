"""WSGI entry point: `gunicorn ffa_site.wsgi` (see `make serve`)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ffa_site.settings")

application = get_wsgi_application()

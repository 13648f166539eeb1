"""The installable, offline-readable app: its web app manifest and its service worker.

Both are served at the site's root: a service worker controls only the pages under the path
it is served from, and the sheets it keeps (/characters/<id>/ and /characters/<id>/play/)
are under /. Neither needs a login: the worker also runs on the pages of someone logged out,
where it has nothing to keep (offline.js forgets what the last user opened).
"""

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.views.decorators.http import require_GET

SERVICE_WORKER = "js/sw.js"
ICON_SIZES = (192, 512)
# The masthead's black, as the browser's chrome around the installed app.
THEME_COLOUR = "#000000"


@require_GET
def manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest: what an installed FFA is called, looks like and opens on."""
    data = {
        "name": "Far Future Action character builder",
        "short_name": "FFA",
        "description": "Build and keep Far Future Action characters; sheets you opened stay "
        "readable offline.",
        "id": "/",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOUR,
        "background_color": THEME_COLOUR,
        "icons": [
            {
                "src": static(f"icons/icon-{size}.png"),
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": "any maskable",
            }
            for size in ICON_SIZES
        ],
    }
    return JsonResponse(data, content_type="application/manifest+json")


def _service_worker_source() -> bytes:
    """Read on each request: a few kB, and an edit shows without a restart."""
    path = finders.find(SERVICE_WORKER)
    if not isinstance(path, str):
        raise FileNotFoundError(f"static/{SERVICE_WORKER} is missing")
    with open(path, "rb") as handle:
        return handle.read()


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker's script, at the root so that its scope is the whole site."""
    response = HttpResponse(_service_worker_source(), content_type="text/javascript")
    response["Service-Worker-Allowed"] = "/"
    # Always asked again, so a new worker reaches every browser on its next visit.
    response["Cache-Control"] = "no-cache"
    return response

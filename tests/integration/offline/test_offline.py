"""The installable app: the web app manifest, its icons, and the service worker's script and
headers; every page links them and carries the (hidden) offline banner."""

import json

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.urls import reverse
from PIL import Image

pytestmark = pytest.mark.django_db


def test_the_manifest_names_the_app_and_opens_it_standalone_at_the_root(client):
    response = client.get("/manifest.webmanifest")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["name"] == "Far Future Action character builder"
    assert manifest["short_name"] == "FFA"
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == (
        "/",
        "/",
        "standalone",
    )
    assert manifest["theme_color"] == "#000000"


def test_the_manifest_s_icons_are_pngs_of_192_and_512_pixels(client):
    icons = json.loads(client.get("/manifest.webmanifest").content)["icons"]

    assert [icon["sizes"] for icon in icons] == ["192x192", "512x512"]
    for icon in icons:
        assert icon["type"] == "image/png"
        assert icon["src"].startswith(settings.STATIC_URL)
        path = finders.find(icon["src"].removeprefix(settings.STATIC_URL))
        with Image.open(path) as image:
            assert image.format == "PNG"
            assert f"{image.width}x{image.height}" == icon["sizes"]


def test_the_service_worker_is_served_at_the_root_with_the_whole_site_as_its_scope(client):
    response = client.get("/sw.js")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript"
    assert response["Service-Worker-Allowed"] == "/"
    assert response["Cache-Control"] == "no-cache"
    with open(finders.find("js/sw.js"), "rb") as source:
        assert response.content == source.read()


def test_the_service_worker_and_manifest_keep_the_strict_content_security_policy(client):
    for url in ("/sw.js", "/manifest.webmanifest", "/"):
        policy = client.get(url)["Content-Security-Policy"]
        directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
        assert directives["script-src"] == "'self'", url
        assert directives["default-src"] == "'self'", url
        assert "unsafe" not in policy, url


def test_the_service_worker_and_manifest_need_no_login_and_take_only_get(client):
    for url in ("/sw.js", "/manifest.webmanifest"):
        assert client.get(url).status_code == 200
        assert client.post(url).status_code == 405


def test_every_page_links_the_manifest_and_the_offline_script_and_hides_the_banner(
    owner_client, owner
):
    html = owner_client.get(reverse("home")).content.decode()

    assert f'<link rel="manifest" href="{reverse("web_manifest")}">' in html
    assert 'src="/static/js/offline.js" defer' in html
    assert f'data-service-worker="{reverse("service_worker")}"' in html
    assert f'data-reader="{owner.pk}"' in html
    assert '<div id="offline-banner" class="offline-banner" role="status"' in html
    assert "data-offline-banner hidden>" in html
    assert '<form method="post" action="/accounts/logout/" class="nav__logout" data-logout>' in html


def test_a_page_for_no_one_names_no_reader(client):
    assert 'data-reader=""' in client.get(reverse("login")).content.decode()

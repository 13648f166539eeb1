"""A request body over the limit is refused with a clear 413 from its Content-Length alone, before
any of it is read; the import's own 1 MB message still answers a file just over its limit."""

import socket
import time

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from characters.models import Character

pytestmark = pytest.mark.django_db

IMPORT = "/characters/import/"


def test_an_upload_over_the_limit_gets_the_413_page(owner_client):
    upload = SimpleUploadedFile(
        "huge.json", b" " * (settings.MAX_REQUEST_BYTES + 1), content_type="application/json"
    )

    response = owner_client.post(IMPORT, {"document": upload})

    assert response.status_code == 413
    html = response.content.decode()
    assert "<h1>Too large</h1>" in html
    assert "at most 1000 kB" in html
    assert "Traceback" not in html
    assert not Character.objects.exists()


def test_a_file_just_over_the_import_limit_gets_the_imports_own_message(owner_client):
    # Under the request limit, over the document limit: read, then refused with a message.
    upload = SimpleUploadedFile(
        "big.json", b" " * (settings.MAX_IMPORT_BYTES + 1), content_type="application/json"
    )

    response = owner_client.post(IMPORT, {"document": upload})

    assert response.status_code == 400
    assert "big.json: larger than 1000 kB" in response.content.decode()


def test_the_body_is_refused_by_its_length_without_being_read(client):
    # The header claims 600 MB; the test client's payload holds 10 bytes and raises if
    # anything tries to read past them. The login form's CSRF check would read it: it never
    # gets that far.
    response = client.generic(
        "POST",
        reverse("login"),
        data=b"username=x",
        content_type="application/x-www-form-urlencoded",
        CONTENT_LENGTH=str(600_000_000),
    )

    assert response.status_code == 413
    assert "Too large" in response.content.decode()


def test_a_body_at_the_limit_is_let_through(owner_client):
    body = b"x" * settings.MAX_REQUEST_BYTES

    response = owner_client.generic(
        "POST", IMPORT, data=body, content_type="application/octet-stream"
    )

    # Through to the view, which finds no document in it.
    assert response.status_code == 400
    assert "choose a character document" in response.content.decode()


def test_a_malformed_length_is_not_a_server_error(client):
    response = client.generic(
        "POST", reverse("login"), data=b"", CONTENT_LENGTH="lots", content_type="text/plain"
    )

    assert response.status_code < 500


@pytest.mark.django_db(transaction=True)
def test_a_server_answers_413_while_the_client_is_still_sending(live_server):
    # Only headers are sent: a server that read the body first would wait for 600 MB.
    host, port = live_server.url.removeprefix("http://").split(":")
    head = (
        f"POST {IMPORT} HTTP/1.1\r\nHost: {host}\r\nContent-Type: multipart/form-data; "
        "boundary=x\r\nContent-Length: 600000000\r\n\r\n"
    ).encode()
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(head + b"--x\r\n")
        start = time.monotonic()
        answer = connection.recv(65536)

    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert time.monotonic() - start < 5

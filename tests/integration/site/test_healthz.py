import pytest


@pytest.mark.django_db
def test_healthz_answers_ok_without_touching_the_database(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")

    assert response.status_code == 200
    assert response.content == b"ok"
    assert not response.cookies, "a health probe must not start a session or set a CSRF cookie"


def test_healthz_answers_probes_by_ip_address_over_plain_http(client, settings):
    # Load balancers probe app servers by address, without TLS, behind production settings.
    settings.ALLOWED_HOSTS = ["ffa.example.com"]
    settings.SECURE_SSL_REDIRECT = True

    response = client.get("/healthz", HTTP_HOST="10.0.0.7:8000")

    assert response.status_code == 200
    assert response.content == b"ok"

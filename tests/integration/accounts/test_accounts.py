import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def test_sign_up_creates_the_account_and_logs_the_new_user_in(client):
    response = client.post(
        "/accounts/signup/",
        {"username": "newcomer", "password1": "jump-2-to-regina", "password2": "jump-2-to-regina"},
        follow=True,
    )

    assert get_user_model().objects.filter(username="newcomer").exists()
    assert response.context["user"].username == "newcomer"
    assert response.redirect_chain[-1][0] == reverse("home")
    assert b"Welcome, newcomer" in response.content
    assert b"Welcome back" not in response.content  # the first visit is no return


def test_sign_up_refuses_mismatched_passwords(client):
    response = client.post(
        "/accounts/signup/",
        {"username": "newcomer", "password1": "jump-2-to-regina", "password2": "jump-1-to-efate"},
    )

    assert response.status_code == 200
    assert not get_user_model().objects.filter(username="newcomer").exists()
    assert response.context["form"].errors["password2"]


def test_login_page_has_username_and_password_fields(client):
    response = client.get("/accounts/login/")

    assert response.status_code == 200
    assert b'name="username"' in response.content
    assert b'name="password"' in response.content


def test_login_with_the_right_password_leads_to_the_dashboard(client):
    UserFactory(username="player1")

    response = client.post(
        "/accounts/login/", {"username": "player1", "password": PASSWORD}, follow=True
    )

    assert response.context["user"].is_authenticated
    assert b"Welcome back, player1" in response.content


def test_login_with_a_wrong_password_is_refused(client):
    UserFactory(username="player1")

    response = client.post("/accounts/login/", {"username": "player1", "password": "wrong"})

    assert response.status_code == 200
    assert not response.context["user"].is_authenticated
    assert response.context["form"].non_field_errors()


def test_logout_is_a_post_that_ends_the_session(client):
    client.force_login(UserFactory())

    assert client.get("/accounts/logout/").status_code == 405
    response = client.post("/accounts/logout/")

    assert response.status_code == 302
    assert "_auth_user_id" not in client.session
    assert client.get("/characters/").status_code == 302


def test_password_change_replaces_the_password_and_keeps_the_user_logged_in(client):
    user = UserFactory()
    client.force_login(user)

    response = client.post(
        "/accounts/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "a-new-high-passage",
            "new_password2": "a-new-high-passage",
        },
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("password_change_done")
    user.refresh_from_db()
    assert user.check_password("a-new-high-passage")
    assert client.get("/characters/").status_code == 200


def test_password_change_needs_the_old_password(client):
    user = UserFactory()
    client.force_login(user)

    response = client.post(
        "/accounts/password/",
        {
            "old_password": "not-it",
            "new_password1": "a-new-high-passage",
            "new_password2": "a-new-high-passage",
        },
    )

    assert response.status_code == 200
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


@pytest.mark.parametrize("url", ["/characters/", "/campaigns/", "/accounts/password/"])
def test_anonymous_visitors_are_sent_to_the_login_page(client, url):
    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={url}"


@pytest.mark.parametrize(
    ("url", "method"),
    [("/characters/1/play/condition/", "post"), ("/encounters/1/live/", "get")],
    ids=["an action", "the turn order's poll"],
)
def test_an_htmx_request_whose_session_ended_takes_the_whole_page_to_the_login(client, url, method):
    # Followed by htmx, the redirect would swap the login page into the region it updates,
    # and the login would lead back to the action's URL, not to the page it was sent from.
    response = getattr(client, method)(
        url,
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL="http://testserver/characters/1/play/?gravity=2",
    )

    assert response.status_code == 200
    assert response["HX-Redirect"] == "/accounts/login/?next=/characters/1/play/%3Fgravity%3D2"


def test_an_htmx_request_from_another_site_s_page_is_sent_to_the_login_alone(client):
    response = client.post(
        "/characters/1/play/condition/",
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL="https://elsewhere.example/characters/1/play/",
    )

    assert response["HX-Redirect"] == "/accounts/login/"


def change_password(client, new: str, *, old: str = PASSWORD, address: str = "192.0.2.10"):
    data = {"old_password": old, "new_password1": new, "new_password2": new}
    return client.post("/accounts/password/", data, REMOTE_ADDR=address)


def test_a_password_change_sends_the_owner_a_notice_with_when_and_from_where(client):
    user = UserFactory(username="player1", email="player1@example.com")
    client.force_login(user)

    response = change_password(client, "a-new-high-passage")

    assert response.status_code == 302
    [notice] = mail.outbox
    assert notice.to == ["player1@example.com"]
    assert "password was changed" in notice.subject
    assert '"player1"' in notice.body
    assert "192.0.2.10" in notice.body
    assert "If you did not" in notice.body
    assert "A notice of the change went to your e-mail address" in (
        client.get(response["Location"]).content.decode()
    )


def test_a_refused_password_change_sends_no_notice(client):
    client.force_login(UserFactory(email="player1@example.com"))

    change_password(client, "a-new-high-passage", old="not-it")

    assert mail.outbox == []


def test_an_account_without_an_e_mail_address_changes_its_password_without_a_notice(client):
    user = UserFactory(email="")
    client.force_login(user)

    assert change_password(client, "a-new-high-passage").status_code == 302
    assert mail.outbox == []
    user.refresh_from_db()
    assert user.check_password("a-new-high-passage")


def test_the_notice_goes_to_the_console_unless_configured_otherwise():
    from ffa_site import settings as site_settings

    assert site_settings.EMAIL_BACKEND == "django.core.mail.backends.console.EmailBackend"


@pytest.mark.parametrize("password", ["eleven-char", "short"])
def test_a_password_shorter_than_twelve_characters_is_refused_at_signup(client, password):
    response = client.post(
        "/accounts/signup/", {"username": "newcomer", "password1": password, "password2": password}
    )

    assert response.status_code == 200
    assert "at least 12 characters" in str(response.context["form"].errors["password2"])
    assert not get_user_model().objects.filter(username="newcomer").exists()


def test_a_password_shorter_than_twelve_characters_is_refused_on_change(client):
    user = UserFactory()
    client.force_login(user)

    response = change_password(client, "eleven-char")

    assert response.status_code == 200
    assert "at least 12 characters" in str(response.context["form"].errors["new_password2"])
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_twelve_characters_are_enough(client):
    client.force_login(UserFactory())

    assert change_password(client, "twelve-chars").status_code == 302


def test_sign_up_keeps_an_optional_e_mail_address_for_notices(client):
    client.post(
        "/accounts/signup/",
        {
            "username": "newcomer",
            "email": "newcomer@example.com",
            "password1": "jump-2-to-regina",
            "password2": "jump-2-to-regina",
        },
    )

    assert get_user_model().objects.get(username="newcomer").email == "newcomer@example.com"

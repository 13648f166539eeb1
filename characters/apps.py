from django.apps import AppConfig


class CharactersConfig(AppConfig):
    name = "characters"
    verbose_name = "Characters and campaigns"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from ffa_site.throttling import remember_login_address

        # Logins from an address the account has used before are not slowed by others' guesses.
        user_logged_in.connect(remember_login_address, dispatch_uid="remember-login-address")

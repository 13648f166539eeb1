from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from characters.accounts import views as accounts_views

# Only the account pages the site offers: no password reset, since an e-mail address is
# optional (it only receives the notice of a password change).
account_patterns = [
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("signup/", accounts_views.signup, name="signup"),
    path("password/", accounts_views.password_change, name="password_change"),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
]

handler404 = "ffa_site.errors.not_found"

urlpatterns = [
    path("", include("characters.urls")),
    path("accounts/", include(account_patterns)),
    path("admin/", admin.site.urls),
]

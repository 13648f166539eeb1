"""URL converters of the site.

`<id:pk>` is `<int:pk>` bounded to 18 digits: every such number fits a 64-bit primary key
(2^63 has 19 digits), so a longer one is a 404 from the URL resolver instead of an overflow in
the database driver (a 500).

`<token:code>` is a share link's token or a campaign's invite code: `secrets.token_urlsafe`'s
alphabet (letters, digits, "-" and "_"), at most as long as the longer column holds. Anything
else, a NUL above all (PostgreSQL refuses one in a query, a 500), is a 404 before any view.

Registered by ffa_site/__init__.py, so they exist as soon as the settings are imported, before
any URL module (however it is first imported) needs them.
"""

from django.urls import register_converter


class IdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


class TokenConverter:
    regex = "[A-Za-z0-9_-]{1,64}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(IdConverter, "id")
register_converter(TokenConverter, "token")

"""URL converters of the site.

`<id:pk>` is `<int:pk>` bounded to 18 digits: every such number fits a 64-bit primary key
(2^63 has 19 digits), so a longer one is a 404 from the URL resolver instead of an overflow in
the database driver (a 500). Registered by ffa_site/__init__.py, so it exists as soon as the
settings are imported, before any URL module (however it is first imported) needs it.
"""

from django.urls import register_converter


class IdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")

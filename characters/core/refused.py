"""A refused form's fields, kept for the page its Post/Redirect/Get leads back to.

Without JavaScript an action posts, and its answer is a redirect back to the page, where the
outcome shows from a message. When the action was refused the page shows its form again as it
was typed: the fields wait in the session under the form's name and are read once.
"""

from django.http import HttpRequest, QueryDict

SESSION_KEY = "refused-form"
# Each value kept is cut at the longest text any of these forms takes (a credit's note).
VALUE_LENGTH = 200


def keep_refused_form(request: HttpRequest, *, form: str, fields: QueryDict) -> None:
    """Keep the refused ``fields`` (without the CSRF token) for the next page that asks for
    ``form``; a form refused after it takes its place."""
    request.session[SESSION_KEY] = {
        "form": form,
        "fields": {
            name: [value[:VALUE_LENGTH] for value in fields.getlist(name)]
            for name in fields
            if name != "csrfmiddlewaretoken"
        },
    }


def refused_form(request: HttpRequest, *, form: str) -> QueryDict | None:
    """The fields of ``form`` as they were refused, once; None when none wait for it."""
    kept = request.session.get(SESSION_KEY)
    if not kept or kept.get("form") != form:
        return None
    del request.session[SESSION_KEY]
    fields = QueryDict(mutable=True)
    for name, values in kept["fields"].items():
        fields.setlist(name, values)
    return fields

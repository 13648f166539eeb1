"""The form every review action posts: an optional comment and the page to go back to."""

from django import forms

# A comment is read at the table, not a document: long enough for a page of notes.
COMMENT_MAX = 4000


class ReviewForm(forms.Form):
    comment = forms.CharField(
        required=False,
        max_length=COMMENT_MAX,
        error_messages={"max_length": f"Comment: at most {COMMENT_MAX:,} characters."},
    )
    next = forms.CharField(required=False, max_length=200)

"""The builder's Django forms: a new character, an import, a pasted stat block, and what a
builder post says beside the character's own fields (``BuilderPostForm``). The character's
fields are read by ``form_document``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, cast

from django import forms
from django.conf import settings

from characters.core.forms import MAX_VERSION, VersionField, WholeNumberField
from rules import catalog


class NewCharacterForm(forms.Form):
    """A new character: its name, whether a player plays it, its species and (an NPC's) budget."""

    name = forms.CharField(
        max_length=catalog().bounds.name_length,
        error_messages={
            "required": "Give the character a name.",
            "max_length": f"A name has at most {catalog().bounds.name_length} characters.",
        },
    )
    kind = forms.ChoiceField(
        choices=[("pc", "Player character"), ("npc", "NPC")],
        error_messages={
            "required": "Choose a player character or an NPC.",
            "invalid_choice": "Choose a player character or an NPC.",
        },
    )
    species = forms.ChoiceField(
        error_messages={
            "required": "Choose a species from the list.",
            "invalid_choice": "Choose a species from the list.",
        },
    )
    budget = forms.CharField(required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        species = cast(forms.ChoiceField, self.fields["species"])
        species.choices = [(key, s.name) for key, s in catalog().species.items()]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        limits = catalog().limits
        data["budget_points"] = limits.default_budget
        if data.get("kind") == "npc":
            budget = WholeNumberField(
                label="An NPC's budget", minimum=0, maximum=limits.max_budget, required=True
            )
            try:
                data["budget_points"] = budget.read(data.get("budget", ""))
            except forms.ValidationError as invalid:
                self.add_error("budget", invalid)
        return data


class ImportForm(forms.Form):
    """A character document to import: a JSON file, at most ``settings.MAX_IMPORT_BYTES``."""

    document = forms.FileField(
        error_messages={
            "required": "document: choose a character document (a .json file) to upload.",
            "missing": "document: choose a character document (a .json file) to upload.",
            "empty": "document: the file is empty.",
        }
    )

    def clean_document(self) -> Any:
        upload = self.cleaned_data["document"]
        if upload.size > settings.MAX_IMPORT_BYTES:
            limit = settings.MAX_IMPORT_BYTES // 1000
            raise forms.ValidationError(
                f"{upload.name}: larger than {limit} kB; a character document is far smaller."
            )
        return upload


class PasteStatBlockForm(forms.Form):
    """A stat block to paste as a new draft: its text, player character or NPC, and whether to
    read it (``preview``) or create the draft read from it (``create``). ``previewed`` is the
    fingerprint of the text the person last saw read: a draft is made only from that text."""

    text = forms.CharField(
        strip=False,
        # A stat block is a few lines; its description is kept as the notes, so no longer.
        max_length=catalog().bounds.notes_length,
        widget=forms.Textarea,
        error_messages={
            "required": "Stat block: paste the stat block's text.",
            "max_length": f"Stat block: at most {catalog().bounds.notes_length:,} characters; "
            "a stat block is far shorter.",
        },
    )
    kind = forms.ChoiceField(
        choices=[("pc", "Player character"), ("npc", "NPC")],
        error_messages={
            "required": "Kind: choose a player character or an NPC.",
            "invalid_choice": "Kind: choose a player character or an NPC.",
        },
    )
    action = forms.ChoiceField(
        choices=[("preview", "Read it"), ("create", "Create")], required=False
    )
    previewed = forms.CharField(required=False, max_length=64)

    def fingerprint(self) -> str:
        """What the preview of the cleaned text and kind is known by."""
        data = self.cleaned_data
        return hashlib.sha256(f"{data['kind']}\n{data['text']}".encode()).hexdigest()

    def creates(self) -> bool:
        """Whether to create the draft: asked for, from the very text last previewed."""
        data = self.cleaned_data
        return data["action"] == "create" and data["previewed"] == self.fingerprint()


@dataclass(frozen=True)
class BuilderPost:
    """What a builder post carries beside the character: the button pressed (``action``: save,
    roll, overwrite, or a row's add or remove without the page's script), the version the page
    was drawn from (a save from a page that fell behind is a conflict, never an overwrite;
    -1 when the post did not say), its sitting (one opening of the page: its saves share one
    revision) and its count of the sitting's saves (``stamp``: saves may land out of order,
    and one older than the last stored changes nothing). ``redraw`` asks for the whole form
    back, drawn from what was posted; ``leaving`` marks the page's last save as it is left."""

    action: str
    version: int
    sitting: str
    stamp: int
    redraw: bool
    leaving: bool


class BuilderPostForm(forms.Form):
    action = forms.CharField(required=False, max_length=100)
    version = VersionField(required=False)
    editing_session = forms.CharField(max_length=32, required=False)
    edit_stamp = WholeNumberField(minimum=0, maximum=MAX_VERSION, default=0, required=False)
    redraw = forms.BooleanField(required=False)
    leaving = forms.BooleanField(required=False)

    def post(self, *, default_action: str) -> BuilderPost:
        """The post as read; a post whose bookkeeping cannot be read saves as a page that fell
        behind would (version -1 matches no stored version: a conflict, nothing written)."""
        if not self.is_valid():
            return BuilderPost(default_action, -1, "", 0, False, False)
        data = self.cleaned_data
        version = data["version"]
        return BuilderPost(
            action=data["action"] or default_action,
            version=-1 if version is None else version,
            sitting=data["editing_session"],
            stamp=data["edit_stamp"],
            redraw=data["redraw"],
            leaving=data["leaving"],
        )


class TypedNameForm(forms.Form):
    """What one of the builder's add boxes holds, named as the box is (``new-skill`` or
    ``trait-notation``): the page asks why it adds nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        longest = catalog().bounds.label_length
        for box in ("new-skill", "trait-notation"):
            self.fields[box] = forms.CharField(required=False, max_length=longest, strip=False)

    def box(self) -> tuple[str, str]:
        """The box asked about and what it holds; the skill box's when the ask is unreadable."""
        if self.is_valid():
            for box in ("trait-notation", "new-skill"):
                if box in self.data:
                    return box, self.cleaned_data[box]
        return "new-skill", ""

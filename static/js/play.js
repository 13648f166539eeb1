// The play sheet: an action swaps the whole play region (#play), and the browser's scroll
// anchoring would carry the player far from the result on a phone. The clicked button stays where
// it was on the screen, the outcome beside it comes into view, focus goes back to the button (or
// the outcome), and a refused action keeps what was typed in its form.
(() => {
  "use strict";

  let clicked = null; // {action, wound, top, typed}: the button the last action was sent with

  // What was typed and chosen: not the hidden fields, which the new region brings up to date.
  const typed = (field) => field.name && field.type !== "hidden" && field.tagName !== "BUTTON";
  const ticked = (field) => field.type === "checkbox" || field.type === "radio";
  const typedIn = (form) =>
    [...form.elements]
      .filter(typed)
      .map((field) => ({ name: field.name, value: field.value, checked: field.checked }));
  const retype = (form, entries) => {
    const fields = [...form.elements].filter(typed);
    for (const { name, value, checked } of entries) {
      const field = fields.find((f) => f.name === name && (!ticked(f) || f.value === value));
      if (!field) continue;
      if (ticked(field)) field.checked = checked;
      else field.value = value;
    }
  };

  const find = ({ action, wound }) => {
    const scope = wound === null ? "#play" : `#play [data-wound="${wound}"]`;
    return document.querySelector(`${scope} [data-action="${action}"]`);
  };

  document.addEventListener(
    "submit",
    (event) => {
      const button = event.submitter;
      const play = document.getElementById("play");
      if (!play || !play.contains(event.target) || !button || !button.dataset.action) {
        clicked = null;
        return;
      }
      const row = button.closest("[data-wound]");
      clicked = {
        action: button.dataset.action,
        wound: row ? row.dataset.wound : null,
        top: button.getBoundingClientRect().top,
        typed: typedIn(event.target),
      };
    },
    true,
  );

  document.addEventListener("htmx:afterSwap", () => {
    if (!clicked) return;
    const was = clicked;
    clicked = null; // the odds that load into the new region are not an action
    const button = find(was);
    if (button) window.scrollBy(0, button.getBoundingClientRect().top - was.top);
    const notice = document.getElementById("outcome");
    // Not by its class: htmx gives a swapped element its old classes until it settles.
    if (button && button.form && notice && notice.hasAttribute("data-refused")) {
      retype(button.form, was.typed);
    }
    if (notice) {
      const box = notice.getBoundingClientRect();
      if (box.top < 0 || box.bottom > window.innerHeight) {
        notice.scrollIntoView({ block: "nearest" });
      }
    }
    const focus = button && !button.disabled ? button : notice;
    if (focus) focus.focus({ preventScroll: true });
  });

  // The dice roller: a skill chosen (or typed) picks the attribute suggested for it; in capture,
  // so the attribute is set before htmx asks for the odds.
  document.addEventListener(
    "change",
    (event) => {
      const field = event.target;
      if (!(field instanceof HTMLElement) || !field.dataset.suggests) return;
      const attribute = document.querySelector(field.dataset.suggests);
      let suggested = null;
      if (field instanceof HTMLSelectElement) {
        const option = field.selectedOptions[0];
        suggested = option ? option.dataset.attribute : null;
      } else if (field instanceof HTMLInputElement && field.list) {
        const skill = document.getElementById("roll-skill");
        if (skill && skill.value !== "other") return;
        const typed = field.value.trim().toLowerCase();
        const match = [...field.list.options].find((o) => o.value.toLowerCase() === typed);
        suggested = match ? match.dataset.attribute : null;
      }
      if (attribute && suggested) attribute.value = suggested;
    },
    true,
  );
})();

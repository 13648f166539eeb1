// The attack form's bursts follow the weapon chosen: each weapon chip names the bursts its
// weapon fires (data-bursts), and the other burst chips are hidden and switched off, so they
// are neither offered nor posted; a weapon without autofire hides the whole autofire part.
// Further targets follow the burst: one target for each data-rounds-per-target rounds, so a
// single shot or a burst too short for a second target hides them. Without JavaScript every
// burst shows, named by the weapons that fire it, and the server refuses one the chosen weapon
// does not fire, or further targets its burst does not reach. The range follows the weapon
// too, until chosen.
(() => {
  "use strict";

  const follow = (form) => {
    const weapon = form.querySelector('input[name="weapon"]:checked');
    const autofire = form.querySelector("[data-autofire]");
    if (!weapon || !autofire) return;
    const fired = new Set(weapon.dataset.bursts.split(" ").filter(Boolean));
    autofire.hidden = fired.size === 0;
    for (const input of autofire.querySelectorAll("input")) input.disabled = autofire.hidden;
    let lost = false;
    for (const burst of autofire.querySelectorAll('input[name="autofire_rounds"]')) {
      if (burst.value === "0") continue;
      const offered = fired.has(burst.value);
      burst.closest(".chip-option").hidden = !offered;
      burst.disabled = !offered;
      if (!offered && burst.checked) lost = true;
    }
    if (lost) autofire.querySelector('input[name="autofire_rounds"][value="0"]').checked = true;
    followBurst(form);
  };

  // How many targets the chosen burst reaches: one per so many rounds (or part of them).
  const targetsReached = (rounds, perTarget) => (rounds > 0 ? Math.ceil(rounds / perTarget) : 1);

  const followBurst = (form) => {
    const further = form.querySelector("[data-further]");
    if (!further) return;
    const burst = form.querySelector('input[name="autofire_rounds"]:checked:not(:disabled)');
    const rounds = burst ? Number(burst.value) : 0;
    further.hidden = targetsReached(rounds, Number(further.dataset.roundsPerTarget)) < 2;
    for (const input of further.querySelectorAll("input")) input.disabled = further.hidden;
  };

  const followAll = (root) => {
    for (const form of root.querySelectorAll("form.attack")) follow(form);
  };

  // The range starts at the band the chosen weapon's attack is first offered at (data-band: a
  // pistol's pistol range, a sword's optimal distance) and follows the weapon until the person
  // chooses a range.
  const followBand = (form, weapon) => {
    if ("rangeChosen" in form.dataset || !weapon.dataset.band) return;
    const band = form.querySelector(`input[name="range_band"][value="${weapon.dataset.band}"]`);
    if (band) band.checked = true;
  };

  // Listened to while the event comes down (capture), so the bursts and the range are set
  // before htmx, listening on the form as the event bubbles up, asks for the odds.
  document.addEventListener(
    "change",
    (event) => {
      const field = event.target;
      const form = field instanceof HTMLInputElement && field.closest("form.attack");
      if (!form) return;
      if (field.name === "range_band") form.dataset.rangeChosen = "";
      if (field.name === "weapon") {
        follow(form);
        followBand(form, field);
      }
      if (field.name === "autofire_rounds") followBurst(form);
    },
    true,
  );
  // A swapped action panel comes with the weapon it was filled in for.
  document.addEventListener("htmx:load", (event) => followAll(event.detail.elt));

  // The turn can move on while a person fills in the action panel (a player acted from a phone,
  // or another tab did), and the polling brings the next turn's panel. Swapped under their
  // finger, the next tap would act for the next fighter with its defaults. A panel the person
  // has changed is kept instead, saying so: its action, sent, is refused as the turn is over,
  // and the answer shows the turn as it stands.
  const touch = (event) => {
    const panel = event.target instanceof Element && event.target.closest("#act");
    if (panel) panel.dataset.touched = "";
  };
  document.addEventListener("input", touch, true);
  document.addEventListener("change", touch, true);
  document.addEventListener("htmx:oobBeforeSwap", (event) => {
    const panel = event.detail.target;
    if (!panel || panel.id !== "act" || !("touched" in panel.dataset)) return;
    event.detail.shouldSwap = false;
    if (panel.querySelector("[data-moved-on]")) return;
    const notice = document.createElement("p");
    notice.className = "play__notice play__notice--error";
    notice.setAttribute("role", "status");
    notice.dataset.movedOn = "";
    notice.append("The turn has moved on since you began: this form is for a turn that is over. ");
    const link = document.createElement("a");
    link.href = window.location.pathname;
    link.textContent = "Show the turn as it stands";
    notice.append(link, ".");
    panel.prepend(notice);
  });

  // An action (a POST) replaces the region its button was in, and the focus would fall back to
  // the page: a keyboard user would start again at the skip link. The focus goes to the outcome
  // at the top of the action panel instead, so the next Tab reaches the next action. The odds
  // and the turn order's polling are GETs and leave the focus where it is.
  document.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail.requestConfig?.verb !== "post") return;
    const outcome = document.getElementById("outcome");
    if (!outcome || !document.getElementById("encounter")?.contains(outcome)) return;
    outcome.focus({ preventScroll: true });
    const box = outcome.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) outcome.scrollIntoView({ block: "nearest" });
  });
  followAll(document);
})();

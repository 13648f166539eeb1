// The attack form follows the weapon chosen: only the bursts it fires (data-bursts) are offered
// and posted, further targets only for a burst that reaches them, and the range its attack is
// first offered at, until one is chosen. Without JavaScript everything shows and the server
// refuses what the weapon cannot do.
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

  const followAll = (root) => root.querySelectorAll("form.attack").forEach(follow);

  // The band the weapon's attack is first offered at (data-band), until the person chooses one.
  const followBand = (form, weapon) => {
    if ("rangeChosen" in form.dataset || !weapon.dataset.band) return;
    const band = form.querySelector(`input[name="range_band"][value="${weapon.dataset.band}"]`);
    if (band) band.checked = true;
  };

  // In capture, so the bursts and the range are set before htmx asks for the odds.
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

  // The turn can move on (polled) while a person fills in the action panel: swapped under their
  // finger, the next tap would act for the next fighter. A panel they changed is kept, saying
  // so; its action is refused as the turn is over, and the answer shows the turn as it stands.
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
    if (!panel.querySelector("[data-moved-on]")) {
      panel.prepend(document.getElementById("moved-on").content.cloneNode(true));
    }
  });

  // An action (a POST) replaces its region: focus goes to the outcome, not back to the skip
  // link, so the next Tab reaches the next action. The odds and the polling leave it alone.
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

// The builder page. Rows live in the page (Add and Remove use the server's <template>s); every
// edit posts the whole form (htmx, debounced), answered with the figures out of band and what
// became of the save (builder/save-state.js). Without this script the buttons post the form.
import { parseTrait, resolveSkill } from "./builder/names.js";
import * as saveState from "./builder/save-state.js";

const builder = document.getElementById("builder");
const catalog = JSON.parse(document.getElementById("names-catalog").textContent);
const field = (name) => builder.elements.namedItem(name);
const shown = () => builder.querySelector("[data-save-state]");
const fromPage = () => saveState.initialModel(shown().dataset.state, shown().textContent.trim());
let model = fromPage();

// Each save stays in the tab until stored, for the next page to send again (below): written as
// it is sent (a write as the page goes can be too late), and kept once the page is going.
let goingAway = false;
const leavingKey = `ffa-builder-leaving:${location.pathname}`;
const keepInTab = (entries) => sessionStorage.setItem(leavingKey, JSON.stringify([...entries]));
let retry = null;
const waiting = []; // what goes once no save is pending: a link followed, another form sent
const pending = () => ["dirty", "saving"].includes(model.state);
function on(event, detail) {
  const before = model.state;
  model = saveState.transition(model, event, detail);
  Object.assign(shown(), { textContent: saveState.text(model) }).dataset.state = model.state;
  if (model.state !== before && !["saved", "partial", "dirty", "saving"].includes(model.state)) {
    announce(saveState.text(model));
  }
  clearTimeout(retry);
  if (model.state === "retrying") retry = setTimeout(save, saveState.retryDelay(model));
  if (model.state === "signedOut") retry = setTimeout(save, 5000);
  if (!pending()) waiting.splice(0).forEach((go) => go());
}
const save = () => saveState.sending(model) && htmx.trigger(builder, "builder:save");
function edited({ now = true } = {}) {
  on("edit");
  if (saveState.sending(model)) htmx.trigger(builder, now ? "builder:save" : "builder:edit");
}
// Signing in again in another tab renews the CSRF secret: the page's own token would be refused.
function csrfToken() {
  const name = `${builder.dataset.csrfCookie}=`;
  const cookie = document.cookie.split("; ").find((pair) => pair.startsWith(name));
  if (cookie) field("csrfmiddlewaretoken").value = decodeURIComponent(cookie.slice(name.length));
  return field("csrfmiddlewaretoken").value;
}
// Each save carries the page's count of its saves: they may land out of order; the latest wins.
const nextStamp = () => (field("edit_stamp").value = Number(field("edit_stamp").value) + 1);

builder.addEventListener("htmx:configRequest", (event) => {
  if (event.detail.elt !== builder) return;
  const params = event.detail.parameters;
  event.detail.stamp = params.edit_stamp = nextStamp();
  event.detail.headers["X-CSRFToken"] = params.csrfmiddlewaretoken = csrfToken();
  for (const name of ["action", "new-skill", "trait-notation"]) delete params[name];
  keepInTab(event.detail.formData);
});
builder.addEventListener("htmx:beforeSend", (event) => {
  if (event.detail.elt === builder) on("send", { stamp: event.detail.requestConfig.stamp });
});
builder.addEventListener("builder:saved", ({ detail: { state, message, version, stamp } }) => {
  if (["saved", "partial"].includes(state) && stamp === model.stamp) field("version").value = version;
  on(state, { message, stamp });
  if (!saveState.unsaved(model) && !goingAway) sessionStorage.removeItem(leavingKey);
  newsOfTheFigures();
});
for (const failure of ["htmx:sendError", "htmx:responseError", "htmx:timeout"]) {
  builder.addEventListener(failure, (event) => {
    if (event.detail.elt === builder) on(navigator.onLine ? "failed" : "offline");
  });
}
// A session that ended answers with the login page: the page stays, with its edits, and says so.
builder.addEventListener("htmx:beforeOnLoad", (event) => {
  if (event.detail.elt !== builder || !event.detail.xhr.getResponseHeader("HX-Redirect")) return;
  event.preventDefault();
  on("signedOut");
});
window.addEventListener("offline", () => on("offline"));
document.addEventListener("ffa:online", () => on("online") || (saveState.unsaved(model) && save()));
document.addEventListener("visibilitychange", () => model.state === "signedOut" && save());
if (!navigator.onLine) on("offline");

// A link followed, or another form sent, right after an edit goes once the edit is stored (3 s at
// most), so the next page shows it: a save sent as the page goes would race that page.
function whenSaved(go) {
  if (!pending()) return go();
  waiting.push(go);
  if (model.state === "dirty") save(); // now, not after the pause; one on its way goes on
  setTimeout(() => waiting.includes(go) && waiting.splice(waiting.indexOf(go), 1) && go(), 3000);
}
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[href]");
  const elsewhere = event.button || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey;
  if (!link || event.defaultPrevented || elsewhere || !pending()) return;
  if ((link.target && link.target !== "_self") || link.hasAttribute("download")) return;
  if (link.origin !== location.origin || link.href.split("#")[0] === location.href.split("#")[0]) return;
  event.preventDefault();
  whenSaved(() => location.assign(link.href));
});
const released = new WeakSet();
document.addEventListener(
  "submit",
  (event) => {
    const form = event.target;
    if (form === builder || released.has(form) || !pending()) return;
    event.preventDefault();
    event.stopPropagation();
    whenSaved(() => released.add(form) && form.requestSubmit(event.submitter));
  },
  true,
);
// Save posts the whole form itself: the sitting's latest save, and the page's last.
let leavingBySave = false;
builder.addEventListener("submit", () => {
  csrfToken();
  nextStamp();
  leavingBySave = true;
});
// Left with edits not stored: the form goes by beacon, and this tab keeps it.
window.addEventListener("pagehide", () => {
  if (leavingBySave || !saveState.unsaved(model)) return;
  const body = new FormData(builder);
  body.set("edit_stamp", nextStamp());
  body.set("csrfmiddlewaretoken", csrfToken());
  body.set("leaving", "on");
  navigator.sendBeacon(builder.getAttribute("action"), body);
  keepInTab(body);
});
window.addEventListener("beforeunload", (event) => {
  goingAway = true;
  const kept = ["conflict", "paused", "signedOut", "offline"].includes(model.state);
  if (kept && saveState.unsaved(model)) event.preventDefault();
});
// A page drawn before the last page's save landed sends it again and is redrawn from it, until
// it is stored or refused for a reason the page shows (a conflict, a review, Save's own answer).
function sendAgainWhatWasLeft() {
  const left = JSON.parse(sessionStorage.getItem(leavingKey) ?? "null");
  const sent = Object.fromEntries(left ?? []);
  const { storedSitting, storedStamp } = builder.dataset;
  const landed = sent.editing_session === storedSitting && Number(sent.edit_stamp) <= Number(storedStamp);
  const refused = ["conflict", "paused", "unreadable"].includes(model.state);
  if (!left || landed || refused) return sessionStorage.removeItem(leavingKey);
  const values = {};
  for (const [name, value] of left) if (name !== "leaving") (values[name] ??= []).push(value);
  const stamp = Number(sent.edit_stamp) + 1;
  Object.assign(values, { edit_stamp: stamp, redraw: "on", csrfmiddlewaretoken: csrfToken() });
  const page = document.getElementById("builder-page");
  const redraw = { source: page, target: page, select: "#builder-page", swap: "morph:outerHTML" };
  htmx
    .ajax("POST", builder.getAttribute("action"), { ...redraw, values }) // the token is in values
    .catch(() => {}) // lost on the network: sent again below
    .finally(() => setTimeout(sendAgainWhatWasLeft, 1000));
}
sendAgainWhatWasLeft();
document.body.addEventListener("htmx:afterSettle", (event) => {
  if (event.detail.target?.id === "builder-page") model = fromPage();
});
// Back (or Forward) to a page kept by the browser: what is stored may have moved on since.
window.addEventListener("pageshow", (event) => event.persisted && location.reload());

// Typing is saved once the player pauses for a moment; a choice (a select, a box) at once.
builder.addEventListener("input", (event) => {
  if (!event.target.matches("input.live:not([type=checkbox]), textarea.live")) return;
  keepRowHooks(event.target);
  edited({ now: false });
});
builder.addEventListener("change", (event) => {
  if (!event.target.matches("select.live, input.live[type=checkbox]")) return;
  keepRowHooks(event.target);
  edited();
});
// The rows' hooks name what the row holds now; armor chosen may be marked worn.
function keepRowHooks(control) {
  const row = control.closest("[data-row-key]");
  if (!row) return;
  const chosen = control.selectedOptions?.[0];
  if (control.name.endsWith("-cascade")) row.dataset.cascade = control.value;
  if (control.name.endsWith("-type")) showControlScore(row, chosen);
  if (!control.name.endsWith("-item")) return;
  row.dataset.itemRow = control.value.split("|")[0];
  showBox(row.querySelector("[data-worn]"), Boolean(chosen?.hasAttribute("data-wearable")));
}
// A box not shown is not posted (the type's default stands, or nothing is worn).
function showBox(label, shown) {
  label.hidden = !shown;
  label.querySelector("input").disabled = !shown;
}
// A flaw's row shows its control-score box (ticked if the type has one by default); a flaw that
// becomes another keeps it as the player sees it.
function showControlScore(row, chosen) {
  const label = row.querySelector("[data-control-score]");
  if (!label) return; // a derived-attribute trait's row
  const flaw = Boolean(chosen?.hasAttribute("data-flaw"));
  if (flaw && label.hidden) label.querySelector("input").checked = chosen.hasAttribute("data-control");
  showBox(label, flaw);
  row.querySelector("[data-controlbox]").disabled = !flaw;
}

// A copy of a template's elements, their placeholders (__key__, __skill__…) filled in.
function fromTemplate(template, values) {
  const copy = template.content.cloneNode(true);
  const fill = (text) => text.replace(/__(\w+?)__/g, (whole, name) => values[name] ?? whole);
  for (const element of copy.querySelectorAll("*")) {
    for (const attribute of element.attributes) attribute.value = fill(attribute.value);
  }
  const texts = document.createTreeWalker(copy, NodeFilter.SHOW_TEXT);
  while (texts.nextNode()) texts.currentNode.data = fill(texts.currentNode.data);
  return [...copy.children];
}
// A new row, keyed as the server keys them: the first number no row of its section has.
function placeRow(kind, values, template = kind) {
  const section = builder.querySelector(`[data-rows="${kind}"]`);
  let key = 0;
  while (section.querySelector(`[data-row-key="${key}"]`)) key += 1;
  const [row] = fromTemplate(section.querySelector(`[data-row-template="${template}"]`), { key, ...values });
  section.querySelector(".rows__empty").before(row);
  rowsChanged(section);
  return row;
}
// A row's controls are named for its place among the rows ("Trait 2: level").
function rowsChanged(section) {
  const rows = section.querySelectorAll("[data-row-key]");
  section.querySelector(".rows__empty").hidden = rows.length > 0;
  rows.forEach((row, place) => {
    for (const named of row.querySelectorAll("[aria-label]")) {
      named.ariaLabel = named.ariaLabel.replace(/^(\D+ )(\d+|__number__)/, `$1${place + 1}`);
    }
  });
}
function addSkill({ skill, cascade, level, specialties }) {
  const summary = builder.querySelector(`#skill-catalog option[value="${CSS.escape(skill)}"]`);
  const row = placeRow("skill", { skill, summary: summary?.textContent ?? "" });
  const parts = builder.querySelector(`template[data-skill-parts="${CSS.escape(skill)}"]`);
  if (parts) {
    const [cascadeCell, specialtiesCell] = fromTemplate(parts, { key: row.dataset.rowKey });
    row.querySelector("[data-cell=cascade]").replaceWith(cascadeCell);
    row.querySelector("[data-cell=specialties]").replaceWith(specialtiesCell);
  }
  if (cascade) row.querySelector("[name$='-cascade']").value = row.dataset.cascade = cascade;
  row.querySelector("[name$='-level']").value = level;
  for (const box of row.querySelectorAll("[data-specialty]")) box.checked = specialties.includes(box.value);
  return row;
}
function addTrait({ type, level = "", frequency = "", control, name = "", derived = {} }) {
  const derivedShape = Object.keys(derived).length > 0;
  const row = placeRow("trait", {}, derivedShape ? "derived_trait" : "trait");
  const fields = { type, name, level, frequency };
  for (const input of row.querySelectorAll("[name]")) {
    const [, , named, code] = input.name.split("-");
    // The row template carries a default figure; a typed trait names every figure it moves.
    input.value = named === "derived" ? (derived[code] ?? "") : (fields[named] ?? input.value);
  }
  if (derivedShape) return row;
  const chosen = row.querySelector("[name$='-type']").selectedOptions[0];
  showControlScore(row, chosen);
  row.querySelector("[data-control-score] input").checked = control ?? chosen.hasAttribute("data-control");
  return row;
}
// Focus goes to the new row (a trait's description), or stays in the box, for the next name.
function focusInView(control) {
  control?.focus();
  control?.scrollIntoView({ block: "nearest" });
}
const firstControlIn = (row) =>
  row.querySelector("[name$='-name']") ?? row.querySelector("input:not([type=hidden]), select");
function added(row, focus = "row") {
  edited();
  announce(`${row.dataset.skill ?? "Row"} added.`, { withFigures: true });
  focusInView(focus === "row" ? firstControlIn(row) : focus);
}
function removeRow(button) {
  const row = button.closest("[data-row-key]");
  const section = row.closest("[data-rows]");
  const stays = [row.nextElementSibling, row.previousElementSibling].find((next) => next?.dataset.rowKey);
  row.remove();
  rowsChanged(section);
  focusInView(stays ? firstControlIn(stays) : section.querySelector("[data-add], [data-action=add-item]"));
  announce("Row removed.", { withFigures: true });
  edited();
}
// What the page can read is added at once; the rest stays selected in its box (the next name
// typed replaces it) while the server says why beside it, and what it may stand for.
function addFromBox(box, focus) {
  const typed = box.value.trim();
  const row = box.dataset.add === "skill" ? resolveSkill(catalog, typed) : parseTrait(catalog, typed);
  const message = document.getElementById(`${box.name}-message`);
  htmx.trigger(message, "htmx:abort");
  message.replaceChildren();
  if (row) {
    box.value = "";
    return added(box.dataset.add === "skill" ? addSkill(row) : addTrait(row), focus);
  }
  if (typed || box.dataset.add === "skill") htmx.trigger(message, "builder:explain");
  box.focus();
  box.select();
}

// Without this script the buttons post to the server; with it, each does its work here.
const ACTIONS = {
  add_skill: (name, button) => {
    const box = field("new-skill");
    const offered = button.closest(".add-message"); // a near name offered for what the box held
    if (offered) box.value = name;
    if (!name || offered) return addFromBox(box, offered || button.matches(":focus-visible") ? box : "row");
    added(addSkill(resolveSkill(catalog, name)));
  },
  add_trait_notation: () => addFromBox(field("trait-notation"), "row"),
  add_trait: (code) => {
    const [type, level, frequency] = code.split(":");
    added(addTrait({ type, level, frequency }));
  },
  add_example_trait: (_name, button) => added(addTrait({ ...button.dataset })),
  add_derived_trait: (type) => added(addTrait({ type, derived: { DEF: type === "PF" ? -1 : 1 } })),
  add_item: () => added(placeRow("item", {})),
  remove: (_key, button) => removeRow(button),
  step: (_code, button) => step(button),
};
builder.addEventListener("click", (event) => {
  const button = event.target.closest("button[name=action]");
  const [verb, ...argument] = button?.value.split(":") ?? [];
  const action = ACTIONS[verb?.replace(/^remove_.*/, "remove")];
  if (!action) return; // Save, Keep mine, roll: the form posts
  event.preventDefault();
  action(argument.join(":"), button);
});
// Enter never removes anything: in an add box it adds what is typed, elsewhere it does nothing.
builder.addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || event.isComposing || !event.target.matches("input, select")) return;
  event.preventDefault();
  if (event.target.dataset.add) addFromBox(event.target, event.target);
});
// A step stays inside the purchase range, or goes back towards it; no level: the average.
function step(button) {
  const input = button.parentElement.querySelector("input");
  const typed = input.value.trim().toUpperCase();
  let level = /^\d+$/.test(typed) ? Number(typed) : builder.dataset.hexDigits.indexOf(typed);
  const highest = Number(document.getElementById(`figures-${input.name}`).dataset.max);
  const by = Number(button.dataset.step);
  if (level < 0 || !typed) level = Number(input.dataset.average);
  else if ((by > 0 && level >= highest) || (by < 0 && level <= Number(input.dataset.min))) return;
  else level += by;
  input.value = String(level);
  edited();
}

// What one save brings back (the points, each new problem) is said as one message, with the row
// that moved them: a second message so soon would cut the first off.
const announcer = document.getElementById("announcer");
const news = [];
let flush = null;
function announce(message, { withFigures = false } = {}) {
  news.push(/[.!?]$/.test(message) ? message : `${message}.`);
  clearTimeout(flush);
  flush = setTimeout(() => (announcer.textContent = news.splice(0).join(" ")), withFigures ? 1500 : 50);
}
const problems = () =>
  [...document.querySelectorAll("#problems [data-problem]")].map((p) => p.textContent.trim());
const points = () => document.querySelector(".status__points").textContent.trim();
let known = new Set(problems());
let pointsKnown = points();
function newsOfTheFigures() {
  const fresh = problems().filter((message) => !known.has(message));
  if (points() !== pointsKnown || fresh.length) [points(), ...fresh].forEach(announce);
  [known, pointsKnown] = [new Set(problems()), points()];
  // A field left empty takes the default its placeholder shows, which the figures carry.
  const defaults = document.getElementById("feedback").dataset;
  field("age").placeholder = defaults.placeholderAge;
  field("native_language").placeholder = defaults.placeholderLanguage;
  field("native_culture").placeholder = defaults.placeholderCulture;
}

// The builder page. Its rows live in the page: Add and Remove change it at once, from the
// <template>s the server drew. Every edit is saved: htmx posts the whole form (debounced; a newer
// post replaces one on its way) and the answer brings the figures back out of band, with what
// became of the save, which the save state (builder/save-state.js) turns into the words shown.
// Leaving, the last unsaved form goes by beacon, and is kept for this tab in case the next page
// is drawn before it lands. Without this script the page is a plain form whose buttons post to
// the server, which draws it again.
import { parseTrait, resolveSkill } from "./builder/names.js";
import * as saveState from "./builder/save-state.js";

const builder = document.getElementById("builder");
const catalog = JSON.parse(document.getElementById("names-catalog")?.textContent ?? "{}");
const field = (name) => builder.elements.namedItem(name);
const shownState = () => builder.querySelector("[data-save-state]");
let model = saveState.initialModel(shownState().dataset.state, shownState().textContent.trim());

// -- The save state ------------------------------------------------------------------------------
let retryTimer = null;
const waiting = []; // what to do once no save is pending (a link followed, a form sent)
const pending = () => ["dirty", "saving"].includes(model.state);
function on(event, detail) {
  const before = model;
  model = saveState.transition(model, event, detail);
  shownState().textContent = saveState.text(model);
  shownState().dataset.state = model.state;
  const news = model.state !== before.state && !["saved", "dirty", "saving"].includes(model.state);
  if (news && model.state !== "partial") announce(saveState.text(model));
  clearTimeout(retryTimer);
  if (model.state === "retrying") retryTimer = setTimeout(save, saveState.retryDelay(model));
  if (model.state === "signedOut") retryTimer = setTimeout(save, 5000);
  if (!pending()) waiting.splice(0).forEach((go) => go());
}
const save = () => saveState.sending(model) && htmx.trigger(builder, "builder:save");
function edited({ now = true } = {}) {
  on("edit");
  if (saveState.sending(model)) htmx.trigger(builder, now ? "builder:save" : "builder:edit");
}
function whenSaved(go) {
  if (!pending()) return go();
  waiting.push(go);
  if (model.state === "dirty") save(); // now, not after the pause (one on its way goes on)
  setTimeout(() => waiting.includes(go) && waiting.splice(waiting.indexOf(go), 1) && go(), 3000);
}

// Signing in again (in another tab) gives the session a new CSRF secret, in its cookie: the token
// the page was drawn with would be refused, in the header and in the form's own field.
function csrfToken() {
  const name = builder.dataset.csrfCookie;
  const cookie = document.cookie.split("; ").find((pair) => pair.startsWith(`${name}=`));
  const token = cookie ? decodeURIComponent(cookie.slice(name.length + 1)) : field("csrfmiddlewaretoken").value;
  field("csrfmiddlewaretoken").value = token;
  return token;
}
// Each save carries the page's count of its saves: they may land out of order, and the server
// keeps the latest.
function nextStamp() {
  const stamp = Number(field("edit_stamp").value) + 1;
  field("edit_stamp").value = String(stamp);
  return stamp;
}

builder.addEventListener("htmx:configRequest", (event) => {
  if (event.detail.elt !== builder) return;
  const params = event.detail.parameters;
  event.detail.stamp = params.edit_stamp = nextStamp();
  event.detail.headers["X-CSRFToken"] = params.csrfmiddlewaretoken = csrfToken();
  for (const name of ["action", "new-skill", "trait-notation"]) delete params[name];
});
builder.addEventListener("htmx:beforeSend", (event) => {
  if (event.detail.elt === builder) on("send", { stamp: event.detail.requestConfig.stamp });
});
builder.addEventListener("builder:saved", (event) => {
  const { state, message, version, stamp } = event.detail;
  if (["saved", "partial"].includes(state) && stamp === model.stamp) field("version").value = version;
  on(state, { message, stamp });
  newsOfTheFigures();
});
for (const failure of ["htmx:sendError", "htmx:responseError", "htmx:timeout"]) {
  builder.addEventListener(failure, (event) => {
    if (event.detail.elt === builder) on(navigator.onLine ? "failed" : "offline");
  });
}
// A session that ended is answered with a redirect to the login page: following it would leave
// the edits behind. The page stays and says why it waits.
builder.addEventListener("htmx:beforeOnLoad", (event) => {
  if (event.detail.elt !== builder || !event.detail.xhr.getResponseHeader("HX-Redirect")) return;
  event.preventDefault();
  on("signedOut");
});
window.addEventListener("offline", () => on("offline"));
document.addEventListener("ffa:online", () => {
  on("online");
  if (saveState.unsaved(model)) save();
});
document.addEventListener("visibilitychange", () => model.state === "signedOut" && save());
if (!navigator.onLine) on("offline");

// -- Leaving -------------------------------------------------------------------------------------
// A link followed, or another form sent (submitting for review, logging out), right after an
// edit goes once the edit is stored, so the next page shows it: a beacon sent on leaving would
// race the next page, and lose on a slow network.
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[href]");
  if (!link || event.defaultPrevented || event.button || event.metaKey || event.ctrlKey) return;
  if (event.shiftKey || event.altKey || (link.target && link.target !== "_self")) return;
  if (link.hasAttribute("download") || link.origin !== location.origin || !pending()) return;
  if (link.pathname === location.pathname && link.search === location.search) return;
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
// Save posts the whole form itself: it is the sitting's latest save, and the page's last.
let leavingBySave = false;
builder.addEventListener("submit", () => {
  csrfToken();
  nextStamp();
  leavingBySave = true;
});
// Reloaded, or gone, with edits not stored: the form goes once more, and this tab keeps it, for a
// next page drawn before it lands to send it again.
const leavingKey = `ffa-builder-leaving:${location.pathname}`;
window.addEventListener("pagehide", () => {
  if (leavingBySave || !saveState.unsaved(model)) return;
  const body = new FormData(builder);
  body.set("edit_stamp", nextStamp());
  body.set("csrfmiddlewaretoken", csrfToken());
  body.set("leaving", "on");
  navigator.sendBeacon(builder.getAttribute("action"), body);
  sessionStorage.setItem(leavingKey, JSON.stringify([...body.entries()]));
});
window.addEventListener("beforeunload", (event) => {
  const kept = ["conflict", "paused", "signedOut", "offline"].includes(model.state);
  if (kept && saveState.unsaved(model)) event.preventDefault();
});
// A page drawn from the stored character before the last page's save had landed is older than
// that save: the save goes again, and the form comes back drawn from it. Until it is stored (or
// the answer says why it cannot be: a conflict, a character under review) it is sent again.
function sendAgainWhatWasLeft(asked = false) {
  const left = JSON.parse(sessionStorage.getItem(leavingKey) ?? "null");
  const sent = Object.fromEntries(left ?? []);
  const landed =
    sent.editing_session === builder.dataset.storedSitting &&
    Number(sent.edit_stamp) <= Number(builder.dataset.storedStamp);
  const refused = asked && ["conflict", "paused", "unreadable"].includes(model.state);
  if (!left || landed || refused) return sessionStorage.removeItem(leavingKey);
  const values = {};
  for (const [name, value] of left) (values[name] ??= []).push(value);
  Object.assign(values, { edit_stamp: Number(sent.edit_stamp) + 1, redraw: "on" });
  values.csrfmiddlewaretoken = csrfToken();
  delete values.leaving;
  const page = document.getElementById("builder-page");
  htmx
    .ajax("POST", builder.getAttribute("action"), {
      source: page,
      values,
      headers: { "X-CSRFToken": csrfToken() },
      target: page,
      select: "#builder-page",
      swap: "morph:outerHTML",
    })
    .catch(() => {}) // lost on the network: sent again below
    .finally(() => setTimeout(() => sendAgainWhatWasLeft(true), 1000));
}
sendAgainWhatWasLeft();
document.body.addEventListener("htmx:afterSettle", (event) => {
  if (event.detail.target?.id !== "builder-page") return;
  model = saveState.initialModel(shownState().dataset.state, shownState().textContent.trim());
});
// Back (or Forward) to a page kept by the browser: what is stored may have moved on since.
window.addEventListener("pageshow", (event) => event.persisted && location.reload());

// -- Edits ---------------------------------------------------------------------------------------
// Typing is saved once the player pauses for a moment; a choice (a select, a box) at once.
const TYPED = "input.live:not([type=checkbox]), textarea.live";
const CHOSEN = "select.live, input.live[type=checkbox]";
builder.addEventListener("input", (event) => event.target.matches(TYPED) && edited({ now: false }));
builder.addEventListener("change", (event) => {
  if (!event.target.matches(CHOSEN)) return;
  keepRowHooks(event.target);
  edited();
});
// The rows' hooks name what the row holds now.
function keepRowHooks(control) {
  const row = control.closest("[data-row-key]");
  if (!row) return;
  if (control.name.endsWith("-cascade")) row.dataset.cascade = control.value;
  if (control.name.endsWith("-item")) {
    row.dataset.itemRow = control.value.split("|")[0];
    const wearable = Boolean(control.selectedOptions[0]?.hasAttribute("data-wearable"));
    row.querySelector("[data-worn]").hidden = !wearable;
    row.querySelector("[data-worn] input").disabled = !wearable;
  }
  if (control.name.endsWith("-type")) showControlScore(row, control.selectedOptions[0]);
}
// A flaw's row shows its control-score box: as a type becomes a flaw's, ticked if that type has
// one by default; as it becomes a perk's, the box goes and is not posted (the type's default
// stands). A flaw that becomes another keeps the box as the player sees it.
function showControlScore(row, chosen) {
  const label = row.querySelector("[data-control-score]");
  if (!label) return; // a derived-attribute trait's row
  const box = label.querySelector("input");
  const flaw = Boolean(chosen?.hasAttribute("data-flaw"));
  if (flaw && label.hidden) box.checked = chosen.hasAttribute("data-control");
  label.hidden = !flaw;
  box.disabled = !flaw;
  row.querySelector("[data-controlbox]").disabled = !flaw;
}

// -- Rows ----------------------------------------------------------------------------------------
// A new row's key: the first number no row of its section has, as the server gives them.
function newKey(section) {
  let key = 0;
  while (section.querySelector(`[data-row-key="${key}"]`)) key += 1;
  return String(key);
}
// A copy of a template's first element, its placeholders (__key__, __skill__…) filled in.
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
function placeRow(kind, values) {
  const section = builder.querySelector(`[data-rows="${kind}"]`);
  const template = section.querySelector(`template[data-row-template="${values.template ?? kind}"]`);
  const [row] = fromTemplate(template, { key: newKey(section), ...values });
  const empty = section.querySelector(".rows__empty");
  empty.before(row);
  empty.hidden = true;
  renumber(section);
  return row;
}
// A row's controls are named for its place among the rows ("Trait 2: level").
function renumber(section) {
  section.querySelectorAll("[data-row-key]").forEach((row, place) => {
    for (const named of row.querySelectorAll("[aria-label]")) {
      named.ariaLabel = named.ariaLabel.replace(/^(Trait|Item|Remove trait|Remove item) (\d+|__number__)/, `$1 ${place + 1}`);
    }
  });
}
function addSkill({ skill, cascade, level, specialties }) {
  const summary = builder.querySelector(`#skill-catalog option[value="${CSS.escape(skill)}"]`);
  const row = placeRow("skill", { skill, summary: summary?.textContent ?? "" });
  const parts = builder.querySelector(`template[data-skill-parts="${CSS.escape(skill)}"]`);
  if (parts) {
    const cells = fromTemplate(parts, { key: row.dataset.rowKey });
    row.querySelector("[data-cell=cascade]").replaceWith(cells[0]);
    row.querySelector("[data-cell=specialties]").replaceWith(cells[1]);
  }
  const cascadeField = row.querySelector("[name$='-cascade']");
  if (cascadeField && cascade) cascadeField.value = row.dataset.cascade = cascade;
  row.querySelector("[name$='-level']").value = level || "1";
  for (const box of row.querySelectorAll("[data-specialty]")) box.checked = specialties.includes(box.value);
  return row;
}
function addTrait({ type, level = "", frequency = "", control, name = "", derived = {} }) {
  const shape = Object.keys(derived).length ? "derived_trait" : "trait";
  const row = placeRow("trait", { template: shape });
  row.querySelector("[name$='-type']").value = type;
  row.querySelector("[name$='-name']").value = name;
  for (const input of row.querySelectorAll(".derived-input")) input.value = derived[input.name.slice(-3)] ?? "";
  if (shape === "derived_trait") return row;
  row.querySelector("[name$='-level']").value = level;
  row.querySelector("[name$='-frequency']").value = frequency;
  const chosen = row.querySelector("[name$='-type']").selectedOptions[0];
  showControlScore(row, chosen);
  const box = row.querySelector("[data-control-score] input");
  box.checked = control ?? chosen?.hasAttribute("data-control");
  return row;
}
// Where focus goes in a row: a trait's description, as its grid or notation gave the rest.
const firstControlIn = (row) =>
  row.querySelector("[name$='-name']") || row.querySelector("input:not([type=hidden]), select");
function focusInView(control) {
  control?.focus();
  control?.scrollIntoView({ block: "nearest" });
}
function added(row, focus) {
  edited();
  announce(`${row.dataset.skill ?? "Row"} added.`);
  focusInView(focus === "row" ? firstControlIn(row) : focus);
}
function removeRow(button) {
  const row = button.closest("[data-row-key]");
  const section = row.closest("[data-rows]");
  const stays = [row.nextElementSibling, row.previousElementSibling].find((r) => r?.dataset.rowKey);
  row.remove();
  renumber(section);
  section.querySelector(".rows__empty").hidden = Boolean(section.querySelector("[data-row-key]"));
  focusInView(stays ? firstControlIn(stays) : section.querySelector("[data-add], [data-action=add-item]"));
  announce("Row removed.");
  edited();
}

// -- Adding by name ------------------------------------------------------------------------------
// What the page can read is added at once. The rest stays in its box, selected, so the next name
// typed replaces it; the server says beside it why, and what it may stand for.
function addFromBox(box, focus) {
  const typed = box.value.trim();
  const row = box.dataset.add === "skill" ? resolveSkill(catalog, typed) : parseTrait(catalog, typed);
  const message = document.getElementById(`${box.name}-message`);
  htmx.trigger(message, "htmx:abort");
  message.replaceChildren();
  if (!row) {
    if (typed || box.dataset.add === "skill") htmx.trigger(message, "builder:explain");
    box.focus();
    box.select();
    return;
  }
  box.value = "";
  added(box.dataset.add === "skill" ? addSkill(row) : addTrait(row), focus === "row" ? "row" : box);
}

// -- Buttons and Enter ---------------------------------------------------------------------------
// The buttons post to the server without this script; with it, each does its work here.
const ACTIONS = {
  add_skill: (name, button) => {
    const box = field("new-skill");
    const offered = button.closest(".add-message"); // a near name offered for what the box held
    if (offered) box.value = name;
    if (!name || offered) return addFromBox(box, offered || button.matches(":focus-visible") ? "box" : "row");
    added(addSkill(resolveSkill(catalog, name)), "row");
  },
  add_trait_notation: () => addFromBox(field("trait-notation"), "row"),
  add_trait: (code) => {
    const [type, level, frequency] = code.split(":");
    added(addTrait({ type, level, frequency }), "row");
  },
  add_example_trait: (_name, button) => added(addTrait({ ...button.dataset }), "row"),
  add_derived_trait: (type) => added(addTrait({ type, derived: { DEF: type === "PF" ? -1 : 1 } }), "row"),
  add_item: () => added(placeRow("item", {}), "row"),
  remove_skill: (_key, button) => removeRow(button),
  remove_trait: (_key, button) => removeRow(button),
  remove_item: (_key, button) => removeRow(button),
  step: (code, button) => step(button),
};
builder.addEventListener("click", (event) => {
  const button = event.target.closest("button[name=action]");
  const [verb, ...argument] = button?.value.split(":") ?? [];
  if (!ACTIONS[verb]) return; // Save, Keep mine, roll: the form posts
  event.preventDefault();
  ACTIONS[verb](argument.join(":"), button);
});
// Enter never removes anything: in an add box it adds what is typed, elsewhere it does nothing.
builder.addEventListener("keydown", (event) => {
  const target = event.target;
  if (event.key !== "Enter" || event.isComposing || !target.matches("input, select")) return;
  event.preventDefault();
  if (target.dataset.add) addFromBox(target, "box");
});

// -- Steppers ------------------------------------------------------------------------------------
// Within the purchase range a step stays inside it, from outside it only goes back towards it,
// and a field that holds no level starts again at the average.
function step(button) {
  const input = button.parentElement.querySelector("input");
  const typed = input.value.trim().toUpperCase();
  let level = /^\d+$/.test(typed) ? Number(typed) : builder.dataset.hexDigits.indexOf(typed);
  const highest = Number(document.getElementById(`figures-${input.name}`).dataset.max);
  const by = Number(button.dataset.step);
  if (level < 0 || typed.length === 0) level = Number(input.dataset.average);
  else if ((by > 0 && level >= highest) || (by < 0 && level <= Number(input.dataset.min))) return;
  else level += by;
  input.value = String(level);
  edited();
}

// -- What a screen reader hears ------------------------------------------------------------------
// What one save brings back (the points, each new problem) is said as one message: a second so
// soon would cut the first off.
const announcer = document.getElementById("announcer");
const news = [];
function announce(message) {
  if (!message) return;
  if (!news.length) setTimeout(() => (announcer.textContent = news.splice(0).join(" ")), 50);
  news.push(/[.!?]$/.test(message) ? message : `${message}.`);
}
const problemsShown = () =>
  [...document.querySelectorAll("#problems [data-problem]")].map((p) => p.textContent.trim());
let known = new Set(problemsShown());
let lastPoints = document.querySelector(".status__points")?.textContent.trim();
function newsOfTheFigures() {
  const shown = problemsShown();
  const points = document.querySelector(".status__points")?.textContent.trim();
  const fresh = shown.filter((message) => !known.has(message));
  known = new Set(shown);
  if (points !== lastPoints || fresh.length) [points, ...fresh].forEach(announce);
  lastPoints = points;
  // A field left empty takes the default its placeholder shows, which the figures carry.
  const { placeholderAge, placeholderLanguage, placeholderCulture } = document.getElementById("feedback").dataset;
  field("age").placeholder = placeholderAge;
  field("native_language").placeholder = placeholderLanguage;
  field("native_culture").placeholder = placeholderCulture;
}

// The builder's save state: one plain object, and the table of what each event does to it.
// Nothing here touches the page: builder.js feeds it the page's events and shows its text.

// Where each event leads from each state; an event a state does not list leaves it as it is.
// "unsaved" and "unreadable" come from a page the server drew after a Save it refused.
export const TRANSITIONS = {
  saved: { edit: "dirty", offline: "offline" },
  partial: { edit: "dirty", offline: "offline" },
  unsaved: { edit: "dirty", send: "saving", offline: "offline" },
  unreadable: { edit: "dirty", send: "saving", offline: "offline" },
  dirty: { send: "saving", offline: "offline" },
  saving: { saved: "saved", partial: "partial", conflict: "conflict", paused: "paused",
    unreadable: "unreadable", signedOut: "signedOut", failed: "retrying", offline: "offline" },
  retrying: { send: "saving", offline: "offline" },
  offline: { online: "dirty" },
  signedOut: { send: "saving", offline: "offline" },
  // Submitted or approved: every save asks again, as the referee may have returned it since.
  paused: { send: "saving", offline: "offline" },
  // Another tab saved first: only Save, which shows the two versions, decides.
  conflict: {},
};

// The server's answers to a save, as events.
export const ANSWERS = ["saved", "partial", "conflict", "paused", "unreadable"];

const TEXTS = {
  saved: () => "All changes saved",
  partial: (message) => `Saved ${message}`,
  dirty: () => "Saving…",
  saving: () => "Saving…",
  retrying: () => "Not saved: the server could not be reached. Retrying…",
  offline: () => "Not saved: offline. Your edits stay on this page and are saved when the connection returns.",
  signedOut: () => "Not saved: you are signed out. Sign in again in another tab: your edits stay on this page and are saved then.",
};

// A page as the server drew it: its state, and the message its text carries.
export function initialModel(state, text) {
  const message = text.replace(/^(Not saved: |Saved )/, "");
  const edits = state === "unsaved" || state === "unreadable" ? 1 : 0;
  return { state, message, edits, sent: 0, stored: 0, stamp: null, failures: 0 };
}

// ``detail.stamp``: a send's count of the page's saves, which its answer carries back (an answer
// to an older send, overtaken by a newer one, changes nothing).
export function transition(model, event, detail = {}) {
  const next = { ...model };
  if (event === "edit") next.edits += 1;
  if (event === "send") Object.assign(next, { sent: model.edits, stamp: detail.stamp });
  if (ANSWERS.includes(event)) {
    if (detail.stamp !== model.stamp) return model;
    Object.assign(next, { message: detail.message ?? "", failures: 0 });
    if (event === "saved" || event === "partial") next.stored = model.sent;
  }
  if (event === "failed") next.failures += 1;
  next.state = TRANSITIONS[model.state][event] ?? model.state;
  // Stored, but the player went on: those edits go next. Back online with nothing to send.
  if ((next.state === "saved" || next.state === "partial") && next.edits > next.stored) {
    next.state = "dirty";
  } else if (next.state === "dirty" && next.edits === next.stored) next.state = "saved";
  return next;
}

export function text(model) {
  return (TEXTS[model.state] ?? ((message) => `Not saved: ${message}`))(model.message);
}

// Whether edits on the page are not stored (yet).
export const unsaved = (model) => model.edits > model.stored;

// Whether the page sends its saves: after a conflict, or offline, it waits.
export const sending = (model) => !["conflict", "offline"].includes(model.state);

// How long to wait before trying a failed save again: longer after each failure, at most 30 s.
export const retryDelay = (model) => Math.min(30_000, 1000 * 2 ** Math.max(0, model.failures - 1));

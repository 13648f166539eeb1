// The builder's save state: one object, and what each event does to it.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  TRANSITIONS,
  initialModel,
  retryDelay,
  sending,
  text,
  transition,
  unsaved,
} from "../../static/js/builder/save-state.js";

const saved = () => initialModel("saved", "All changes saved");
const run = (model, ...steps) =>
  steps.reduce((current, [event, detail]) => transition(current, event, detail), model);

test("an edit makes a saved page dirty, and its save makes it saved again", () => {
  const dirty = run(saved(), ["edit"]);
  assert.equal(dirty.state, "dirty");
  assert.equal(text(dirty), "Saving…");
  assert.ok(unsaved(dirty));
  const sent = run(dirty, ["send", { stamp: 1 }]);
  assert.equal(sent.state, "saving");
  const stored = run(sent, ["saved", { stamp: 1 }]);
  assert.equal(stored.state, "saved");
  assert.equal(text(stored), "All changes saved");
  assert.ok(!unsaved(stored));
});

test("edits made while a save is on its way stay unsaved when it lands", () => {
  const model = run(saved(), ["edit"], ["send", { stamp: 1 }], ["edit"], ["saved", { stamp: 1 }]);
  assert.equal(model.state, "dirty");
  assert.ok(unsaved(model));
});

test("the answer to a save overtaken by a newer one changes nothing", () => {
  const model = run(saved(), ["edit"], ["send", { stamp: 1 }], ["edit"], ["send", { stamp: 2 }]);
  const late = transition(model, "conflict", { stamp: 1, message: "stale" });
  assert.equal(late, model);
  assert.equal(run(model, ["saved", { stamp: 2 }]).state, "saved");
});

test("a save the server could not be reached for is retried, later each time", () => {
  let model = run(saved(), ["edit"], ["send", { stamp: 1 }], ["failed"]);
  assert.equal(model.state, "retrying");
  assert.equal(text(model), "Not saved: the server could not be reached. Retrying…");
  const first = retryDelay(model);
  model = run(model, ["send", { stamp: 2 }], ["failed"]);
  assert.ok(retryDelay(model) > first);
  for (let i = 3; i < 20; i++) model = run(model, ["send", { stamp: i }], ["failed"]);
  assert.equal(retryDelay(model), 30_000);
  model = run(model, ["send", { stamp: 20 }], ["saved", { stamp: 20 }]);
  assert.equal(model.state, "saved");
  assert.equal(retryDelay(model), 1000);
});

test("offline, nothing is sent and the edits wait; back online they go", () => {
  let model = run(saved(), ["edit"], ["offline"], ["edit"]);
  assert.equal(model.state, "offline");
  assert.ok(!sending(model));
  assert.match(text(model), /^Not saved: offline\./);
  model = run(model, ["online"]);
  assert.equal(model.state, "dirty");
  assert.ok(sending(model));
});

test("back online with nothing to save, the page is saved", () => {
  assert.equal(run(saved(), ["offline"], ["online"]).state, "saved");
});

test("after a conflict nothing more is sent: only Save decides", () => {
  const model = run(saved(), ["edit"], ["send", { stamp: 1 }], [
    "conflict",
    { stamp: 1, message: "this character was saved elsewhere (version 3). Press Save to compare the two." },
  ]);
  assert.equal(model.state, "conflict");
  assert.ok(!sending(model));
  assert.equal(run(model, ["edit"], ["send", { stamp: 2 }]).state, "conflict");
  assert.equal(text(model), "Not saved: this character was saved elsewhere (version 3). Press Save to compare the two.");
});

test("a submitted character asks again with each edit, and saves once it is returned", () => {
  const message = "it is submitted for review. Press Save to withdraw it and save.";
  let model = initialModel("paused", `Not saved: ${message}`);
  assert.equal(text(model), `Not saved: ${message}`);
  model = run(model, ["edit"], ["send", { stamp: 1 }], ["paused", { stamp: 1, message }]);
  assert.equal(model.state, "paused");
  model = run(model, ["edit"], ["send", { stamp: 2 }], ["saved", { stamp: 2 }]);
  assert.equal(model.state, "saved");
});

test("signed out, the edits wait on the page and are saved once signed in again", () => {
  let model = run(saved(), ["edit"], ["send", { stamp: 1 }], ["signedOut"]);
  assert.equal(model.state, "signedOut");
  assert.match(text(model), /you are signed out/);
  assert.ok(unsaved(model));
  model = run(model, ["send", { stamp: 2 }], ["saved", { stamp: 2 }]);
  assert.equal(model.state, "saved");
});

test("a save that left out a field it could not read says which", () => {
  const model = run(saved(), ["edit"], ["send", { stamp: 1 }], [
    "partial",
    { stamp: 1, message: "all but one field: Terms: enter a whole number from 0 to 99." },
  ]);
  assert.equal(model.state, "partial");
  assert.equal(text(model), "Saved all but one field: Terms: enter a whole number from 0 to 99.");
  assert.ok(!unsaved(model));
});

test("a page the server drew after a refused Save holds edits that are not stored", () => {
  const model = initialModel("unreadable", "Not saved: fix the fields marked below first");
  assert.ok(unsaved(model));
  assert.equal(text(model), "Not saved: fix the fields marked below first");
});

test("every state the table leads to is a state of the table", () => {
  for (const moves of Object.values(TRANSITIONS)) {
    for (const next of Object.values(moves)) assert.ok(next in TRANSITIONS, next);
  }
});

test("no event leaves a state the table does not know", () => {
  const events = ["edit", "send", "saved", "partial", "conflict", "paused", "unreadable", "signedOut", "failed", "offline", "online"];
  for (const state of Object.keys(TRANSITIONS)) {
    for (const event of events) {
      const next = transition({ ...initialModel(state, ""), stamp: 1 }, event, { stamp: 1 });
      assert.ok(next.state in TRANSITIONS, `${state} + ${event} -> ${next.state}`);
    }
  }
});

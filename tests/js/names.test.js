// The builder's script reads typed names as the server does: every example the Python side
// reads (tests/fixtures/typed_names.json, written by tests/js_fixtures.py) reads alike here, and
// every one the server refuses, the script leaves to the server to explain.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { parseTrait, resolveSkill } from "../../static/js/builder/names.js";

const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url)));
const catalog = fixture("names_catalog.json");
const { skills, traits } = fixture("typed_names.json");

for (const { typed, row, error } of skills) {
  const what = row ? `reads as ${row.skill}` : `is left to the server, which says: ${error}`;
  test(`a skill typed as ${JSON.stringify(typed)} ${what}`, () => {
    assert.deepEqual(resolveSkill(catalog, typed), row ?? null);
  });
}

for (const { typed, trait, error } of traits) {
  const what = trait ? "reads as the server reads it" : `is left to the server, which says: ${error}`;
  test(`a trait typed as ${JSON.stringify(typed)} ${what}`, () => {
    assert.deepEqual(parseTrait(catalog, typed), trait ?? null);
  });
}

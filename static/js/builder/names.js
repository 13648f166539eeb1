// Typed names read in the page as the server reads them (characters/builder/buttons.py), from the
// catalog the page carries: a skill, or a trait in bracket notation; the server explains the
// rest. Both are held to one table of examples: tests/fixtures/typed_names.json.

const collapsed = (text) => text.split(/\s+/).filter(Boolean).join(" ");
const plain = (text) => collapsed(text.toLowerCase());
const matchKey = (text) => plain(text.replace(/\s*\([^)]*\)/g, ""));
const lookupKey = (index, key) =>
  index[key] ?? index[`${key}s`] ?? (key.endsWith("s") ? index[key.slice(0, -1)] : undefined);
const lookup = (index, text) => lookupKey(index, plain(text)) ?? lookupKey(index, matchKey(text));
// A number a character document can hold: no figure of the rules is larger.
const whole = (digits) => {
  const written = digits.replaceAll(" ", "");
  const number = Number(written);
  return written.replace(/^[+-]/, "").length > 16 || !Number.isSafeInteger(number) ? null : number;
};

const SKILL = /^([^()]+?)\s*(?:\(([^()]+)\))?\s*-\s*(\d+)\s*(?:\(([^()]+)\))?$/;

// The row a typed skill stands for, { skill, cascade, level, specialties }, or null.
export function resolveSkill(catalog, text) {
  const named = catalog.keys[plain(text)];
  if (named) return { skill: named, cascade: "", level: "1", specialties: [] };
  const levelled = /-\s*\d+\s*(?:\([^()]*\))?$/.test(text) ? text : `${text}-1`;
  const [, written, cascadeWritten = "", level, listed = ""] = levelled.trim().match(SKILL) ?? [];
  const skill = written && whole(level) !== null && catalog.keys[plain(written)];
  if (!skill) return null;
  const entry = catalog.skills[skill];
  let cascade = plain(cascadeWritten) && cascadeWritten.trim().split(/\s+/).join(" ");
  if (cascade && !entry.open) cascade = entry.kind === "cascade" && lookup(entry.cascades, cascade);
  const specialties = listed.split(",").map((s) => s.trim()).filter(Boolean);
  const known = specialties.map((specialty) => lookup(entry.specialties, specialty));
  if (cascade === false || cascade === undefined || known.includes(undefined)) return null;
  return { skill, cascade, level: String(whole(level)), specialties: known };
}

// A description written before the brackets, as the rulebook lists traits: "Loud [PF-I-S -2]".
const DESCRIBED = /^([^[\]]*?\S)\s*(\[[^[\]]*\])$/;
const TRAIT = /^\[?\s*([A-Z]{2})-([A-Z])-([A-Z0])(?:\s+CS\s*(\d+))?\s+([+-]?\d+)\s*\]?$/i;
const DERIVED = /^\[?\s*([A-Za-z]{2})\s+((?:[A-Za-z]{3}\s*[+-]\s*\d+\s*)+?)\s*([+-]?\d+)\s*\]?$/;

// A trait in bracket notation, { type, name, level, frequency, control, derived }, its points as
// the tables give them, or null.
export function parseTrait(catalog, text) {
  const tables = catalog.traits;
  const unstarred = text.replaceAll("*", "").trim();
  const [, described = "", stripped = unstarred] = unstarred.match(DESCRIBED) ?? [];
  const name = collapsed(described);
  const levelled = stripped.match(TRAIT)?.map((part) => part?.toUpperCase());
  if (levelled) {
    const [, type, level, written, control, points] = levelled;
    const frequency = tables.frequency_aliases[written] ?? written;
    const expected = tables.points[`${type}-${level}-${frequency}`];
    const score = control === undefined || whole(control) === tables.control_scores[level];
    if (expected === undefined || !score || whole(points) !== expected) return null;
    return { type, name, level, frequency, control: control !== undefined, derived: {} };
  }
  const [, typed, changesWritten, points] = stripped.match(DERIVED) ?? [];
  if (!typed) return null;
  const type = typed.toUpperCase();
  const changes = [...changesWritten.matchAll(/([A-Za-z]{3})\s*([+-]\s*\d+)/g)].map(
    ([, code, amount]) => [code.toUpperCase(), whole(amount)],
  );
  const perk = tables.perk_types.includes(type);
  const fits =
    (perk || tables.flaw_types.includes(type)) &&
    new Set(changes.map(([code]) => code)).size === changes.length &&
    changes.every(([code, amount]) => tables.derived_points[code] && amount && amount > 0 === perk);
  const expected = changes.reduce((sum, [code, amount]) => sum + tables.derived_points[code] * amount, 0);
  if (!fits || whole(points) !== expected) return null;
  return { type, name, level: "", frequency: "", control: false, derived: Object.fromEntries(changes) };
}

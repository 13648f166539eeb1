// ESLint for the site's hand-written JavaScript (make lint). The vendored libraries under
// static/vendor are theirs, not ours.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["static/vendor/**", "staticfiles/**", "node_modules/**", ".venv/**"] },
  js.configs.recommended,
  {
    files: ["static/js/**/*.js"],
    languageOptions: {
      sourceType: "script",
      globals: { ...globals.browser, htmx: "readonly" },
    },
  },
  {
    // The builder's modules, loaded with <script type="module">.
    files: ["static/js/builder.js", "static/js/builder/**/*.js"],
    languageOptions: { sourceType: "module" },
  },
  {
    files: ["static/js/sw.js"],
    languageOptions: { globals: { ...globals.serviceworker } },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.node } },
  },
  {
    rules: {
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_" }],
      eqeqeq: "error",
      "prefer-const": "error",
      "no-var": "error",
    },
  },
];

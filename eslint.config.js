import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      // Built by scripts/build-cli.ts (gitignored): bundled code, not ours to lint.
      "dist/**",
      "docs/.vitepress/cache/**",
      "docs/.vitepress/dist/**",
      "test/conformance/codex-apply-patch/**",
      "shared/demo-repo/**",
      "test-results/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      // "l": V8's linear-time engine, which search_text runs a model's regex on (chapter 8).
      "no-invalid-regexp": ["error", { allowConstructorFlags: ["l"] }],
    },
  },
);

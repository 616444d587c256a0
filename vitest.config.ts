import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["chapters/*/test/**/*.test.ts", "shared/test/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "test/conformance/codex-apply-patch/**"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});

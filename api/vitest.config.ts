import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "api", include: ["src/**/*.test.ts"], hookTimeout: 60_000, testTimeout: 30_000 },
});

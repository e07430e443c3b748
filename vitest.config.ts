import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["db", "api", "workers", "cli", "test"],
    // Test files start databases, workerd and Chromium; two cores do not profit from more.
    maxWorkers: 2,
  },
});

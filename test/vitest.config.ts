import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "test",
    include: ["src/**/*.test.ts"],
    hookTimeout: 120_000,
    testTimeout: 60_000,
    // What a page shows after a sign-in (one scrypt) can take seconds on a loaded 2-core CI machine.
    expect: { poll: { timeout: 10_000 } },
  },
});

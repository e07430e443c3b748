import { describe, expect, it } from "vitest";
import { judgePassword } from "./common-password-dictionary";

describe("judgePassword", () => {
  it("refuses common and patterned passwords, saying why", () => {
    expect(judgePassword("password123").problem).toBe(
      "password is too easy to guess: it is a commonly used password. Add a few uncommon words, or use one your password manager generates.",
    );
    expect(judgePassword("aaaaaaaaaaaa").problem).toContain('it repeats characters, like "aaa"');
    expect(judgePassword("qwertyuiop12").problem).toContain("small change to a commonly used password");
    expect(judgePassword("short").problem).toBe("password must have at least 10 characters");
    expect(judgePassword("x".repeat(1025)).problem).toBe("password must have at most 1024 characters");
  });

  it("refuses a password made of the account's own name and email", () => {
    expect(judgePassword("lovelace2024", ["ada.lovelace@example.com", "Ada Lovelace"]).ok).toBe(false);
    expect(judgePassword("lovelace2024", ["ada.lovelace@example.com", "Ada Lovelace"]).problem).toContain(
      "it contains your name or email",
    );
  });

  it("accepts passphrases and long random passwords", () => {
    expect(judgePassword("correct horse battery")).toEqual({ ok: true, score: 4, problem: null });
    expect(judgePassword("whatever password").ok).toBe(true);
    expect(judgePassword(`k3#9Vq!m${"z".repeat(1000)}`).ok).toBe(true);
  });
});

/**
 * Whether a new password is too easy to guess, and why, in words a person can act on. zxcvbn-ts
 * estimates how many guesses an attacker's cracker would need (common passwords, dictionary words,
 * names, dates, keyboard rows, repeats, the user's own name and email). The same rule runs in the
 * API, which enforces it, and in the console's form, which shows it while typing. Only where its
 * dictionary comes from differs by host (see common-password-dictionary.ts): the Worker fetches it
 * as a static asset, which keeps about 200 KiB (gzip) out of its script.
 */
import { type OptionsDictionary, type OptionsGraph, ZxcvbnFactory } from "@zxcvbn-ts/core";

export const PASSWORD_MIN_CHARS = 10;
export const PASSWORD_MAX_CHARS = 1024;
/** zxcvbn's 0–4 scale; 3 is "safely unguessable: moderate protection from offline slow-hash attacks". */
export const PASSWORD_MIN_SCORE = 3;
/** zxcvbn's cost grows with length; past this many characters the rest cannot make it weaker. */
const SCORED_CHARS = 100;

/** The word lists and keyboard layouts zxcvbn matches against (@zxcvbn-ts/language-common's). */
export interface PasswordDictionary {
  dictionary: OptionsDictionary;
  graphs: OptionsGraph;
}

/** zxcvbn's warning keys → why, for people. */
const WHY: Record<string, string> = {
  topTen: "it is one of the ten most used passwords",
  topHundred: "it is one of the hundred most used passwords",
  common: "it is a commonly used password",
  similarToCommon: "it is a small change to a commonly used password",
  pwned: "it appears in lists of leaked passwords",
  straightRow: "it is a row of keys on the keyboard",
  keyPattern: "it is a short keyboard pattern",
  simpleRepeat: 'it repeats characters, like "aaa"',
  extendedRepeat: 'it repeats a group of characters, like "abcabc"',
  sequences: 'it is a sequence, like "abcd" or "1234"',
  recentYears: "it relies on a recent year",
  dates: "it relies on a date",
  wordByItself: "it is a single common word",
  namesByThemselves: "it is a name",
  commonNames: "it is built on common names",
  userInputs: "it contains your name or email",
};

export interface PasswordVerdict {
  ok: boolean;
  /** zxcvbn's 0–4, or -1 when the length rule already fails. */
  score: number;
  /** What is wrong and what to do; null when the password is acceptable. */
  problem: string | null;
}

/** Judges a new password; `related` are the account's email and name, which it should not contain. */
export type PasswordJudge = (password: string, related?: string[]) => PasswordVerdict;

/** The rule over one dictionary. */
export function passwordJudge(words: PasswordDictionary): PasswordJudge {
  let estimator: ZxcvbnFactory | undefined;
  return (password, related = []) => {
    if (password.length < PASSWORD_MIN_CHARS)
      return { ok: false, score: -1, problem: `password must have at least ${PASSWORD_MIN_CHARS} characters` };
    if (password.length > PASSWORD_MAX_CHARS)
      return { ok: false, score: -1, problem: `password must have at most ${PASSWORD_MAX_CHARS} characters` };
    // Built on first use: its dictionaries take a moment to index.
    estimator ??= new ZxcvbnFactory({ dictionary: words.dictionary, graphs: words.graphs });
    // The address's local part and the name's words, so "ada1815" is caught for ada@example.com.
    const inputs = related.flatMap((value) => [value, ...value.toLowerCase().split(/[@\s.+_-]+/)]).filter(Boolean);
    const result = estimator.check(password.slice(0, SCORED_CHARS), inputs);
    if (result.score >= PASSWORD_MIN_SCORE) return { ok: true, score: result.score, problem: null };
    const why = (result.feedback.warning && WHY[result.feedback.warning]) || "it would be guessed quickly";
    return {
      ok: false,
      score: result.score,
      problem: `password is too easy to guess: ${why}. Add a few uncommon words, or use one your password manager generates.`,
    };
  };
}

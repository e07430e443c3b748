/**
 * The password rule over @zxcvbn-ts/language-common as the package ships it: what the Node host,
 * the console's form and the tests judge with. The Worker does not import this module; it fetches
 * the same data, written by api/src/entry/password-dictionary-file.ts, as a static asset.
 */
import { adjacencyGraphs, dictionary } from "@zxcvbn-ts/language-common";
import { type PasswordDictionary, passwordJudge } from "./password-strength";

export const commonPasswordDictionary: PasswordDictionary = { dictionary, graphs: adjacencyGraphs };

export const judgePassword = passwordJudge(commonPasswordDictionary);

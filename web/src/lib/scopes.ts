import { SCOPE_DESCRIPTIONS, SCOPES } from "@loadout/api/domain/scopes";

// The token scopes come from the API's own list, so the form can never offer one it refuses.
export const TOKEN_SCOPES = SCOPES.map((scope) => ({ scope, hint: SCOPE_DESCRIPTIONS[scope] }));

export const DEFAULT_SCOPES: readonly string[] = ["mcp"];

export const EXPIRY_OPTIONS = [
  { value: "7", label: "7 days" },
  { value: "30", label: "30 days" },
  { value: "90", label: "90 days" },
  { value: "365", label: "365 days" },
  { value: "never", label: "Never" },
] as const;

export const DEFAULT_EXPIRY = "30";

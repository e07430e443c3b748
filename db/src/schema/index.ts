export * from "./api-tokens";
export * from "./audit-events";
export * from "./instance-settings";
export * from "./memberships";
export * from "./rate-limits";
export * from "./sessions";
export * from "./users";
export * from "./workspaces";

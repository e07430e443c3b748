export * from "./client";
export * from "./ids";
export * as schema from "./schema";
export * from "./schema";

#!/usr/bin/env node
// The CLI is TypeScript run through tsx, as `npm start` runs the server: no build step, so
// `npx loadout …` works straight after `npm install` in a clone.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv.slice(2));

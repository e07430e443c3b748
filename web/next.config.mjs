import { fileURLToPath } from "node:url";

/** @type {import('next').NextConfig} */
const nextConfig = {
  // The api serves web/out on its own origin: console, REST, MCP and OAuth share one origin.
  output: "export",
  trailingSlash: true,
  images: { unoptimized: true },
  reactStrictMode: true,
  // The console shares pure rules and schemas with the API (TypeScript sources in the workspace).
  transpilePackages: ["@loadout/api"],
  // next is hoisted to the monorepo's node_modules, so the bundler root is the repo root.
  turbopack: { root: fileURLToPath(new URL("..", import.meta.url)) },
};

export default nextConfig;

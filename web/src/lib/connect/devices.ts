import { api } from "@/lib/api";

// The devices `loadout sync` reported from (GET /v1/devices), as the Connect page shows them.

export type DeviceSync = {
  deviceId: string;
  name: string;
  project: string | null;
  readers: { client: string; kinds: ("skill" | "persona")[] }[];
  written: { skill: number; persona: number };
  syncedAt: string;
  // Whether the handshake still leaves these kinds out for these clients (synced within 7 days).
  fitting: boolean;
};

export const listDevices = () => api.get<{ devices: DeviceSync[] }>("/v1/devices");

export const forgetDevice = (deviceId: string) => api.delete(`/v1/devices/${encodeURIComponent(deviceId)}`);

// The CLI's client names, as people know them.
export const CLIENT_LABELS: Record<string, string> = {
  "claude-code": "Claude Code",
  codex: "Codex",
  cursor: "Cursor",
  opencode: "opencode",
};

import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { DeviceParam, DeviceSyncSchema, ReportSyncInput } from "../../schemas/devices";
import { forgetDevice } from "../../services/devices/forget";
import { listDevices } from "../../services/devices/list";
import { reportSync } from "../../services/devices/report-sync";
import { actionContext } from "../action-context";
import { defineRoute, errorResponse, jsonContent, jsonRequest } from "../define-route";
import type { AppEnv } from "../env";

const tags = ["devices"];

const report = defineRoute(
  { scope: "skills:read" },
  {
    method: "post",
    path: "/v1/devices/sync",
    tags,
    summary: "Report a `loadout sync`: which clients on this device read which kinds of item from its folders",
    description:
      "Replaces the device's last sync. For 7 days, the MCP handshake of a client named here (claude-code, codex-mcp-client, cursor-vscode, opencode) that sends `X-Loadout-Device: <device>` leaves the kinds it reads out of its instructions.",
    request: jsonRequest(ReportSyncInput),
    responses: { 200: jsonContent(DeviceSyncSchema, "The device's sync as stored.") },
  },
);

const list = defineRoute(
  { scope: "skills:read" },
  {
    method: "get",
    path: "/v1/devices",
    tags,
    summary: "Your devices and what their last `loadout sync` wrote, most recent first",
    responses: { 200: jsonContent(z.object({ devices: z.array(DeviceSyncSchema) }), "Devices.") },
  },
);

const forget = defineRoute(
  { scope: "skills:write" },
  {
    method: "delete",
    path: "/v1/devices/{device}",
    tags,
    summary: "Forget a device's sync: its clients get the whole instructions block again",
    request: { params: DeviceParam },
    responses: { 204: { description: "Forgotten." }, 404: errorResponse("No such device among yours.") },
  },
);

export function registerDevices(app: OpenAPIHono<AppEnv>) {
  app.openapi(report, async (c) =>
    c.json(await reportSync({ ctx: actionContext(c), input: c.req.valid("json") }), 200),
  );
  app.openapi(list, async (c) => c.json({ devices: await listDevices({ ctx: actionContext(c) }) }, 200));
  app.openapi(forget, async (c) => {
    await forgetDevice({ ctx: actionContext(c), deviceId: c.req.valid("param").device });
    return c.body(null, 204);
  });
}

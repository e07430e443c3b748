import { z } from "@hono/zod-openapi";
import { SKILL_KINDS } from "@loadout/db";
import { DEVICE_ID_PATTERN, FOLDER_CLIENTS } from "../domain/fitting/fitting";
import { Line, Timestamp } from "./common";

const DeviceId = Line({ error: "device is required: the device's id" }).regex(
  DEVICE_ID_PATTERN,
  "the device id must be 8 to 64 letters, digits, _ or -",
);
const DEVICE_ID_DOC = {
  description: "The device's random id, as `loadout` keeps it in its config folder.",
  example: "dev_01jz8k2m4n6p8r0t2v4x6z8b",
};

export const DeviceParam = z.object({
  device: DeviceId.openapi({ param: { name: "device", in: "path" }, ...DEVICE_ID_DOC }),
});

const Reader = z
  .strictObject({
    client: z.enum(FOLDER_CLIENTS, { error: `client must be one of ${FOLDER_CLIENTS.join(", ")}` }),
    kinds: z
      .array(z.enum(SKILL_KINDS, { error: 'each kind is "skill" or "persona"' }))
      .min(1, "name at least one kind the client reads")
      .max(2),
  })
  .openapi("DeviceSyncReader");

const Count = z.number().int().min(0).max(100_000);

/** What `loadout sync` reports after writing the clients' folders on a device. */
export const ReportSyncInput = z
  .strictObject({
    device: DeviceId.openapi(DEVICE_ID_DOC),
    name: Line({ error: "name is required: the device's host name" })
      .trim()
      .min(1, "name is required: the device's host name")
      .max(255, "name must have at most 255 characters"),
    project: Line().trim().min(1).max(1024).optional().openapi({ description: "The project the sync was for." }),
    readers: z
      .array(Reader)
      .max(FOLDER_CLIENTS.length)
      .refine((r) => new Set(r.map((x) => x.client)).size === r.length, "name each client once")
      .openapi({ description: "Each client on the device that reads the folders written, with the kinds it reads." }),
    written: z
      .strictObject({ skill: Count, persona: Count })
      .openapi({ description: "How many items of each kind the folders now hold." }),
  })
  .openapi("ReportSyncInput");
export type ReportSyncInput = z.infer<typeof ReportSyncInput>;

export const DeviceSyncSchema = z
  .object({
    deviceId: z.string(),
    name: z.string(),
    project: z.string().nullable(),
    readers: z.array(z.object({ client: z.string(), kinds: z.array(z.enum(SKILL_KINDS)) })),
    written: z.object({ skill: z.number().int(), persona: z.number().int() }),
    syncedAt: Timestamp,
    /** Whether the handshake still leaves these kinds out for these clients (synced within 7 days). */
    fitting: z.boolean(),
  })
  .openapi("DeviceSync");
export type DeviceSyncView = z.infer<typeof DeviceSyncSchema>;

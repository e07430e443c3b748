import { z } from "@hono/zod-openapi";
import { ROLES } from "@loadout/db";
import { Email } from "./accounts";
import { Line, NullableTimestamp, Timestamp } from "./common";
import { WorkspaceSchema } from "./workspaces";

const Role = z.enum(ROLES, { error: `role must be one of: ${ROLES.join(", ")}` });

export const MemberParams = z.object({
  ws: Line()
    .min(1)
    .max(64)
    .openapi({ param: { name: "ws", in: "path" }, description: "A team's slug.", example: "acme" }),
  user: Line()
    .min(1)
    .max(64)
    .openapi({ param: { name: "user", in: "path" }, description: "The member's user id.", example: "usr_01j…" }),
});

export const InviteParams = z.object({
  ws: MemberParams.shape.ws,
  id: Line()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, description: "The invite's id.", example: "inv_01j…" }),
});

export const MemberSchema = z
  .object({
    userId: z.string(),
    email: z.string(),
    name: z.string(),
    role: Role,
    joinedAt: Timestamp,
  })
  .openapi("Member");
export type MemberView = z.infer<typeof MemberSchema>;

export const MemberList = z.object({ members: z.array(MemberSchema) }).openapi("MemberList");

export const ChangeRoleInput = z.strictObject({ role: Role.openapi({ example: "admin" }) }).openapi("ChangeRoleInput");
export type ChangeRoleInput = z.infer<typeof ChangeRoleInput>;

export const TransferInput = z
  .strictObject({
    userId: Line({ error: "userId is required: the member who becomes an owner" })
      .min(1, "userId is required: the member who becomes an owner")
      .max(64),
  })
  .openapi("TransferInput");
export type TransferInput = z.infer<typeof TransferInput>;

export const CreateInviteInput = z
  .strictObject({
    email: Email,
    role: Role.default("member"),
    expiresInDays: z
      .number()
      .int("expiresInDays must be a whole number")
      .min(1, "expiresInDays must be between 1 and 30")
      .max(30, "expiresInDays must be between 1 and 30")
      .default(7)
      .openapi({ description: "Days until the link expires (1–30, 7 by default)." }),
  })
  .openapi("CreateInviteInput");
export type CreateInviteInput = z.infer<typeof CreateInviteInput>;

export const InviteStatus = z.enum(["pending", "accepted", "declined", "revoked", "expired"]);

export const InviteSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    role: Role,
    status: InviteStatus,
    invitedBy: z.object({ id: z.string(), email: z.string() }).nullable(),
    createdAt: Timestamp,
    expiresAt: Timestamp,
    settledAt: NullableTimestamp,
  })
  .openapi("Invite");
export type InviteView = z.infer<typeof InviteSchema>;

export const InviteList = z.object({ invites: z.array(InviteSchema) }).openapi("InviteList");

export const CreatedInvite = z
  .object({
    invite: InviteSchema,
    secret: z.string().openapi({ description: "The invite's secret; shown only in this answer." }),
    url: z.string().openapi({ description: "The link to send: the console's invite page with the secret." }),
  })
  .openapi("CreatedInvite");

export const InviteTokenInput = z
  .strictObject({
    token: Line({ error: "token is required: the secret after #token= in the invite link" })
      .trim()
      .min(1, "token is required: the secret after #token= in the invite link")
      .max(200, "token is too long: copy the invite link again"),
  })
  .openapi("InviteTokenInput");
export type InviteTokenInput = z.infer<typeof InviteTokenInput>;

export const InvitePreview = z
  .object({
    team: z.object({ slug: z.string(), name: z.string() }),
    email: z.string(),
    role: Role,
    status: InviteStatus,
    invitedBy: z.object({ email: z.string(), name: z.string() }).nullable(),
    expiresAt: Timestamp,
  })
  .openapi("InvitePreview");
export type InvitePreview = z.infer<typeof InvitePreview>;

export const InviteIntroduction = z
  .object({
    team: z.object({ name: z.string() }),
    email: z.string().openapi({ description: "The address the invite was sent to: sign in, or sign up, with it." }),
  })
  .openapi("InviteIntroduction");
export type InviteIntroduction = z.infer<typeof InviteIntroduction>;

export const AcceptedInvite = z.object({ workspace: WorkspaceSchema }).openapi("AcceptedInvite");

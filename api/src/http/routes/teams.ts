import type { OpenAPIHono } from "@hono/zod-openapi";
import { WorkspaceParam } from "../../schemas/common";
import {
  AcceptedInvite,
  ChangeRoleInput,
  CreatedInvite,
  CreateInviteInput,
  InviteIntroduction,
  InviteList,
  InviteParams,
  InvitePreview,
  InviteTokenInput,
  MemberList,
  MemberParams,
  MemberSchema,
  TransferInput,
} from "../../schemas/teams";
import type { ServerDeps } from "../../services/servers/upstreams";
import { acceptInvite, declineInvite, previewInvite } from "../../services/teams/answer-invite";
import { deleteTeam } from "../../services/teams/delete-team";
import { createInvite, listInvites, revokeInvite } from "../../services/teams/invites";
import { lookUpInvite } from "../../services/teams/look-up-invite";
import { changeRole, listMembers } from "../../services/teams/members";
import { leaveTeam, removeMember } from "../../services/teams/remove-member";
import { transferOwnership } from "../../services/teams/transfer";
import { actionContext, anonymousContext } from "../action-context";
import { defineRoute, errorResponse, jsonContent, jsonRequest } from "../define-route";
import type { AppEnv } from "../env";
import { requestOrigin } from "../origin";

const tags = ["teams"];
const team = "/v1/workspaces/{ws}";
const refusals = {
  403: errorResponse("The caller's role does not allow it (the message says which role does)."),
  404: errorResponse("No such team, member or invite for the caller."),
};

const deleteTeamRoute = defineRoute(
  { scope: "admin" },
  {
    method: "delete",
    path: team,
    tags,
    summary: "Delete a team with everything it holds (owners only)",
    request: { params: WorkspaceParam },
    responses: { 204: { description: "Deleted." }, ...refusals },
  },
);

const membersRoute = defineRoute(
  { scope: "admin" },
  {
    method: "get",
    path: `${team}/members`,
    tags,
    summary: "The workspace's members with their roles",
    request: { params: WorkspaceParam },
    responses: { 200: jsonContent(MemberList, "Members, earliest first."), ...refusals },
  },
);

const changeRoleRoute = defineRoute(
  { scope: "admin" },
  {
    method: "patch",
    path: `${team}/members/{user}`,
    tags,
    summary: "Change a member's role (owners and admins; a team keeps at least one owner)",
    request: { params: MemberParams, ...jsonRequest(ChangeRoleInput) },
    responses: { 200: jsonContent(MemberSchema, "The member."), ...refusals },
  },
);

const removeMemberRoute = defineRoute(
  { scope: "admin" },
  {
    method: "delete",
    path: `${team}/members/{user}`,
    tags,
    summary: "Remove a member (owners and admins), or yourself; it takes effect on their next request",
    request: { params: MemberParams },
    responses: { 204: { description: "Removed." }, ...refusals },
  },
);

const leaveRoute = defineRoute(
  { scope: "admin" },
  {
    method: "post",
    path: `${team}/leave`,
    tags,
    summary: "Leave a team (its last owner cannot: transfer ownership or delete the team)",
    request: { params: WorkspaceParam },
    responses: { 204: { description: "Left." }, ...refusals },
  },
);

const transferRoute = defineRoute(
  { scope: "admin" },
  {
    method: "post",
    path: `${team}/transfer`,
    tags,
    summary: "Make another member an owner and yourself an admin (owners only)",
    request: { params: WorkspaceParam, ...jsonRequest(TransferInput) },
    responses: { 204: { description: "Transferred." }, ...refusals },
  },
);

const invitesRoute = defineRoute(
  { scope: "admin" },
  {
    method: "get",
    path: `${team}/invites`,
    tags,
    summary: "The team's invites: pending ones and the last 30 days' (owners and admins)",
    request: { params: WorkspaceParam },
    responses: { 200: jsonContent(InviteList, "Invites, newest first."), ...refusals },
  },
);

const createInviteRoute = defineRoute(
  { scope: "admin" },
  {
    method: "post",
    path: `${team}/invites`,
    tags,
    summary: "Invite an email address with a role: a single-use link that expires, shown only in this answer",
    request: { params: WorkspaceParam, ...jsonRequest(CreateInviteInput) },
    responses: {
      201: jsonContent(CreatedInvite, "The invite and its link."),
      409: errorResponse("The address is already a member."),
      ...refusals,
    },
  },
);

const revokeInviteRoute = defineRoute(
  { scope: "admin" },
  {
    method: "delete",
    path: `${team}/invites/{id}`,
    tags,
    summary: "Revoke a pending invite; its link stops working",
    request: { params: InviteParams },
    responses: {
      204: { description: "Revoked." },
      409: errorResponse("The invite was already used, declined or revoked."),
      ...refusals,
    },
  },
);

const answerErrors = {
  403: errorResponse("The invite is for another email address."),
  404: errorResponse("No invite has this secret."),
  409: errorResponse("The invite has expired, or was used, declined or revoked."),
};

const previewRoute = defineRoute(
  { scope: null },
  {
    method: "post",
    path: "/v1/invites/preview",
    tags,
    summary: "What an invite link offers: the team, the role, who sent it, and whether it can still be used",
    request: jsonRequest(InviteTokenInput),
    responses: { 200: jsonContent(InvitePreview, "The invite."), 404: answerErrors[404] },
  },
);

const lookupRoute = defineRoute(
  { public: true },
  {
    method: "post",
    path: "/v1/invites/lookup",
    tags,
    summary:
      "Before sign-in: which team an invite link is for and the address it was sent to (nothing else, and only while the link can be used)",
    request: jsonRequest(InviteTokenInput),
    responses: {
      200: jsonContent(InviteIntroduction, "The team's name and the invited address."),
      404: errorResponse("The link is unknown, has expired, or was used, declined or revoked (one answer for all)."),
      429: errorResponse("Too many links looked up from this address; `Retry-After` says when to try again."),
    },
  },
);

const acceptRoute = defineRoute(
  { scope: "admin" },
  {
    method: "post",
    path: "/v1/invites/accept",
    tags,
    summary: "Join the team an invite link names, with its role (the link is then used up)",
    request: jsonRequest(InviteTokenInput),
    responses: { 200: jsonContent(AcceptedInvite, "The team joined."), ...answerErrors },
  },
);

const declineRoute = defineRoute(
  { scope: "admin" },
  {
    method: "post",
    path: "/v1/invites/decline",
    tags,
    summary: "Turn an invite down (the link is then used up)",
    request: jsonRequest(InviteTokenInput),
    responses: { 204: { description: "Declined." }, ...answerErrors },
  },
);

export function registerTeams(app: OpenAPIHono<AppEnv>, serverDeps: ServerDeps) {
  app.openapi(deleteTeamRoute, async (c) => {
    await deleteTeam({ ctx: actionContext(c), ws: c.req.valid("param").ws, deps: serverDeps });
    return c.body(null, 204);
  });
  app.openapi(membersRoute, async (c) =>
    c.json({ members: await listMembers({ ctx: actionContext(c), ws: c.req.valid("param").ws }) }, 200),
  );
  app.openapi(changeRoleRoute, async (c) => {
    const { ws, user } = c.req.valid("param");
    return c.json(await changeRole({ ctx: actionContext(c), ws, userId: user, input: c.req.valid("json") }), 200);
  });
  app.openapi(removeMemberRoute, async (c) => {
    const { ws, user } = c.req.valid("param");
    await removeMember({ ctx: actionContext(c), ws, userId: user });
    return c.body(null, 204);
  });
  app.openapi(leaveRoute, async (c) => {
    await leaveTeam({ ctx: actionContext(c), ws: c.req.valid("param").ws });
    return c.body(null, 204);
  });
  app.openapi(transferRoute, async (c) => {
    await transferOwnership({ ctx: actionContext(c), ws: c.req.valid("param").ws, input: c.req.valid("json") });
    return c.body(null, 204);
  });
  app.openapi(invitesRoute, async (c) =>
    c.json({ invites: await listInvites({ ctx: actionContext(c), ws: c.req.valid("param").ws }) }, 200),
  );
  app.openapi(createInviteRoute, async (c) =>
    c.json(
      await createInvite({
        ctx: actionContext(c),
        ws: c.req.valid("param").ws,
        input: c.req.valid("json"),
        origin: requestOrigin(c),
      }),
      201,
    ),
  );
  app.openapi(revokeInviteRoute, async (c) => {
    const { ws, id } = c.req.valid("param");
    await revokeInvite({ ctx: actionContext(c), ws, id });
    return c.body(null, 204);
  });
  app.openapi(previewRoute, async (c) =>
    c.json(await previewInvite({ ctx: actionContext(c), token: c.req.valid("json").token }), 200),
  );
  app.openapi(lookupRoute, async (c) =>
    c.json(
      await lookUpInvite({
        ctx: anonymousContext(c),
        token: c.req.valid("json").token,
        address: c.get("deps").clientAddress?.(c) ?? null,
      }),
      200,
    ),
  );
  app.openapi(acceptRoute, async (c) =>
    c.json({ workspace: await acceptInvite({ ctx: actionContext(c), token: c.req.valid("json").token }) }, 200),
  );
  app.openapi(declineRoute, async (c) => {
    await declineInvite({ ctx: actionContext(c), token: c.req.valid("json").token });
    return c.body(null, 204);
  });
}

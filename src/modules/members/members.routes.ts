import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, IntegerIdParams, NullableString, authErrors } from '../../core/schemas.js';
import type { InvitationsService } from './invitations.service.js';
import type { MembersService } from './members.service.js';

const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);
const Member = Type.Object({
  userId: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  role: Role,
  twoFactor: Type.Boolean(),
  joinedAt: Type.String({ format: 'date-time' }),
  lastSignInAt: NullableString({ format: 'date-time' }),
});
const Invitation = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  role: Role,
  invitedBy: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
});
const UserIdParams = Type.Object({ userId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
const tags = ['Members'];

export const membersRoutes: FastifyPluginAsyncTypebox<{ members: MembersService; invitations: InvitationsService }> = async (
  app,
  { members, invitations },
) => {
  const manage = { area: 'members' } as const;

  app.get(
    '/members',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'listMembers',
        summary: "The account's people and roles",
        response: { 200: Type.Object({ members: Type.Array(Member) }), ...authErrors },
      },
    },
    async (request) => ({ members: await members.list(principalOf(request).accountId) }),
  );

  app.patch(
    '/members/:userId',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'changeMemberRole',
        summary: "Change a person's role (only an owner makes or changes an owner; one owner always remains)",
        params: UserIdParams,
        body: Type.Object({ role: Role }),
        response: { 200: Type.Object({ userId: Type.Integer(), role: Role }), ...authErrors, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => {
      await members.changeRole(principalOf(request), request.params.userId, request.body.role);
      return { userId: request.params.userId, role: request.body.role };
    },
  );

  app.delete(
    '/members/:userId',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'removeMember',
        summary: 'Remove a person from the account; their sessions in it end',
        params: UserIdParams,
        response: { 204: Type.Null(), ...authErrors, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (request, reply) => {
      await members.remove(principalOf(request), request.params.userId);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/me/membership',
    {
      config: { sessionOnly: true },
      schema: {
        tags,
        operationId: 'leaveAccount',
        summary: "Leave the session's account; every session of the person in it ends, this one too",
        description:
          'As a removal by an admin: keys the person made in the account are revoked and invitations they made withdrawn. 422 for its last owner, who makes someone else owner first.',
        response: { 204: Type.Null(), ...authErrors, 422: ErrorBody },
      },
    },
    async (request, reply) => {
      await members.leave(principalOf(request));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/invitations',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'listInvitations',
        summary: 'Pending invitations',
        response: { 200: Type.Object({ invitations: Type.Array(Invitation) }), ...authErrors },
      },
    },
    async (request) => ({ invitations: await invitations.list(principalOf(request).accountId) }),
  );

  app.post(
    '/invitations',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'createInvitation',
        summary: 'Invite a person by e-mail (the link is mailed and valid 7 days)',
        body: Type.Object({ email: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' }), role: Role }),
        response: { 201: Invitation, ...authErrors, 409: ErrorBody },
      },
    },
    async (request, reply) => reply.code(201).send(await invitations.invite(principalOf(request), request.body)),
  );

  app.delete(
    '/invitations/:id',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'withdrawInvitation',
        summary: 'Withdraw a pending invitation',
        params: IntegerIdParams,
        response: { 204: Type.Null(), ...authErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      await invitations.withdraw(principalOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};

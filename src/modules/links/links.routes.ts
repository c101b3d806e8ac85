import { Type, type TSchema } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { principalOf, type Principal } from '../../core/auth.js';
import { streamedForm } from '../../core/validation.js';
import { badRequest } from '../../core/errors.js';
import { ErrorBody, NullableString, OkBody, Pagination, StringId, authErrors } from '../../core/schemas.js';
import type { FileIntake } from '../files/file-intake.js';
import { MAX_IMAGE_UPLOAD_BYTES } from '../files/images.js';
import { asClientError, receiveUpload } from '../files/multipart-upload.js';
import { answerOf, IdempotencyHeaders } from '../idempotency/idempotency-http.js';
import type { UploadService } from '../upload/upload.service.js';
import { LinkChangesBody, LinkSettingsView } from './link-settings-schema.js';
import type { LinksService } from './links.service.js';
import { LIST_PAGE_MAX } from './list-cursor.js';

const tags = ['Links'];
const LinkParams = Type.Object({ id: StringId });
const linkErrors = { ...authErrors, 404: ErrorBody, 410: ErrorBody } as const;

export const LinkMetadata = Type.Object({
  id: Type.String(),
  name: Type.String(),
  mime: Type.String(),
  views: Type.Integer(),
  requires_password: Type.Boolean(),
  has_watermark: Type.Boolean(),
});

/** How far the pages of a PDF or Office file are rendered (status `none` for other files). */
const DocumentSummary = Type.Object({
  status: Type.Union([Type.Literal('none'), Type.Literal('processing'), Type.Literal('ready'), Type.Literal('failed')]),
  pages: Type.Union([Type.Integer(), Type.Null()]),
  rendered: Type.Union([Type.Integer(), Type.Null()], { description: 'pages drawn so far (all of them once ready); null when not a paged document' }),
  error: Type.Union([Type.String(), Type.Null()]),
});

/** The spec's Link object, every setting beside it, and its document's rendering. */
const LinkDetail = Type.Object({
  ...LinkMetadata.properties,
  viewer_url: Type.String({ description: "the link's address for visitors (on the account's verified custom domain when it has one)" }),
  settings: LinkSettingsView,
  document: DocumentSummary,
});

/** A misspelt setting in a change is a 400 naming it, not silently dropped as other bodies' extra fields are. */
async function refuseUnknownChanges(request: FastifyRequest) {
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const unknown = Object.keys(body).find((key) => !Object.hasOwn(LinkChangesBody.properties, key));
  if (unknown !== undefined) {
    throw badRequest(`body field "${unknown}" is not a link setting (settings: ${Object.keys(LinkChangesBody.properties).join(', ')})`);
  }
}

/** The one file part "image" of a preview picture upload, read with the 2 MB cap. */
async function readPreviewImage(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) throw badRequest('send multipart/form-data with the picture in the field "image"');
  let image: Buffer | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_IMAGE_UPLOAD_BYTES + 1, files: 1 } })) {
      if (part.type !== 'file') continue;
      if (part.fieldname !== 'image') throw badRequest(`multipart file part must be named "image", not "${part.fieldname}"`);
      image = await part.toBuffer();
    }
  } catch (error) {
    throw asClientError(error);
  }
  if (!image) throw badRequest('multipart field "image" is required');
  return image;
}

const LinkListItem = Type.Object({
  ...LinkMetadata.properties,
  kind: Type.Union([Type.Literal('file'), Type.Literal('room')]),
  is_active: Type.Boolean(),
  version: Type.Integer(),
  size: Type.Integer(),
  viewer_url: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
  has_expiry: Type.Boolean({ description: 'false when the link never expires (expires_at is then the end of year 9999)' }),
  last_viewed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when a visitor last opened it; null when never' }),
  requires_approval: Type.Boolean(),
  requires_otp: Type.Boolean({ description: 'visitors prove an allowed address with an e-mailed code' }),
  document: DocumentSummary,
});

const RoomChildIds = Type.Array(StringId, { minItems: 1, maxItems: 500 });

const RoomListItem = Type.Object({
  ...LinkMetadata.properties,
  viewer_url: Type.String(),
  links: Type.Integer({ description: 'how many links the room shows' }),
  is_active: Type.Boolean(),
  is_expired: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
  has_expiry: Type.Boolean({ description: 'false when the room never expires' }),
});

const RoomChild = Type.Object({ ...LinkMetadata.properties, viewer_url: Type.String() });

export const linksRoutes: FastifyPluginAsyncTypebox<{ links: LinksService; uploads: UploadService; intake: FileIntake }> = async (
  app,
  { links, uploads, intake },
) => {
  const pascalCase = (kebab: string) => kebab.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());

  /** A setting change: PATCH (PUT and POST are accepted as aliases: `acceptMethodAliases`). */
  function settingRoute<B extends TSchema, R extends TSchema>(
    path: string,
    summary: string,
    body: B,
    response: R,
    handler: (principal: Principal, id: string, body: any) => Promise<unknown>,
  ) {
    app.route({
      method: 'PATCH',
      url: `/:id/${path}`,
      schema: {
        tags,
        operationId: `setLink${pascalCase(path)}`,
        summary,
        params: LinkParams,
        body,
        response: { 200: response, ...linkErrors, 422: ErrorBody },
      },
      handler: async (request: FastifyRequest<{ Params: { id: string } }>) => handler(principalOf(request), request.params.id, request.body),
    });
  }

  app.get(
    '/storage',
    {
      schema: {
        tags,
        operationId: 'getStorage',
        summary: "What the account's files take, and its limit (ACCOUNT_STORAGE_MB; null: none)",
        description:
          'Each file link counts its current version until its file is purged; the page images drawn from it do not count. An upload or replacement that would go past the limit is refused with 413.',
        response: { 200: Type.Object({ usedBytes: Type.Integer(), limitBytes: Type.Union([Type.Integer(), Type.Null()]) }), ...authErrors },
      },
    },
    async (request) => links.storage(principalOf(request).accountId),
  );

  app.get(
    '',
    {
      schema: {
        tags,
        operationId: 'listLinks',
        summary: "List links, newest first unless sorted otherwise, with each tab's count",
        querystring: Type.Object({
          page: Type.Integer({ minimum: 1, maximum: LIST_PAGE_MAX, default: 1 }),
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
          tab: Type.Union([Type.Literal('active'), Type.Literal('expired')], { default: 'active' }),
          cursor: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 1000,
              pattern: '^[A-Za-z0-9_-]+$',
              description:
                "the previous answer's nextCursor: the page after it, whatever the account's size; page is then ignored. " +
                'It holds to the tab, sort and order it was given for (400 with others)',
            }),
          ),
          q: Type.Optional(Type.String({ maxLength: 200, description: 'only links whose name contains this text, ignoring case' })),
          sort: Type.Union([Type.Literal('created'), Type.Literal('name'), Type.Literal('views'), Type.Literal('lastViewed')], {
            default: 'created',
            description: 'created: by creation; name; views: by number of views; lastViewed: by last view (links never viewed come last)',
          }),
          order: Type.Optional(
            Type.Union([Type.Literal('desc'), Type.Literal('asc')], { description: 'desc unless told; for sort=name, asc (A to Z) unless told' }),
          ),
        }),
        response: {
          200: Type.Object({
            links: Type.Array(LinkListItem),
            pagination: Pagination,
            nextCursor: NullableString({ description: 'opaque; pass it as cursor for the next page; null on the last page' }),
            counts: Type.Object(
              { active: Type.Integer(), expired: Type.Integer() },
              { description: "the links under each tab (a search's matches are pagination.total)" },
            ),
          }),
          ...authErrors,
        },
      },
    },
    async (request) => links.list(principalOf(request).accountId, request.query),
  );

  app.post(
    '/room',
    {
      schema: {
        tags: ['Data rooms'],
        operationId: 'createRoom',
        summary: 'Create a data room from existing links; it is a link of its own',
        headers: IdempotencyHeaders,
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 200 }),
          children_ids: RoomChildIds,
          expiration: Type.Optional(Type.Union([Type.Literal('1h'), Type.Literal('24h'), Type.Literal('7d')])),
        }),
        response: { 200: Type.Object({ ok: Type.Boolean(), id: Type.String(), viewer_url: Type.String() }), ...linkErrors, 422: ErrorBody },
      },
    },
    async (request, reply) => {
      const { name, children_ids: childIds, expiration } = request.body;
      return answerOf(reply, await links.createRoom(principalOf(request), { name, childIds, expiration }, request.headers['idempotency-key']));
    },
  );

  app.get(
    '/rooms',
    {
      schema: {
        tags: ['Data rooms'],
        operationId: 'listRooms',
        summary: "List the account's data rooms, newest first, with how many links each holds",
        querystring: Type.Object({
          page: Type.Integer({ minimum: 1, maximum: LIST_PAGE_MAX, default: 1 }),
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
        }),
        response: { 200: Type.Object({ rooms: Type.Array(RoomListItem), pagination: Pagination }), ...authErrors },
      },
    },
    async (request) => links.listRooms(principalOf(request).accountId, request.query),
  );

  app.get(
    '/:id/children',
    {
      schema: {
        tags: ['Data rooms'],
        operationId: 'getRoomChildren',
        summary: "The links a data room shows, in its order (422 for a file's link)",
        params: LinkParams,
        response: { 200: Type.Object({ children: Type.Array(RoomChild) }), ...authErrors, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => links.roomChildrenOf(principalOf(request).accountId, request.params.id),
  );

  app.put(
    '/:id/children',
    {
      schema: {
        tags: ['Data rooms'],
        operationId: 'setRoomChildren',
        summary: 'Set the links a data room shows, in order: links left out leave the room (they are not deleted)',
        params: LinkParams,
        body: Type.Object({ children_ids: RoomChildIds }),
        response: {
          200: Type.Object({ ok: Type.Boolean(), children_ids: Type.Array(Type.String()) }),
          ...authErrors,
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (request) => links.setRoomChildren(principalOf(request), request.params.id, { childIds: request.body.children_ids }),
  );

  app.get(
    '/:id',
    {
      schema: {
        tags,
        operationId: 'getLink',
        summary: 'Metadata of one link, with all its settings',
        description: 'An expired link answers 410, unless `includeExpired` asks for it: a new `expiresAt` brings it back while its file is kept.',
        params: LinkParams,
        querystring: Type.Object({ includeExpired: Type.Optional(Type.Boolean({ default: false })) }),
        response: { 200: LinkDetail, ...linkErrors },
      },
    },
    async (request) => links.get(principalOf(request).accountId, request.params.id, { includeExpired: request.query.includeExpired === true }),
  );

  app.patch(
    '/:id',
    {
      preValidation: refuseUnknownChanges,
      schema: {
        tags,
        operationId: 'updateLink',
        summary: 'Change any subset of the settings and the name, in one transaction; a future expiresAt revives an expired link',
        params: LinkParams,
        body: LinkChangesBody,
        response: { 200: LinkDetail, ...linkErrors, 422: ErrorBody },
      },
    },
    async (request) => links.update(principalOf(request), request.params.id, request.body),
  );

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        operationId: 'deleteLink',
        summary: 'Delete a link and every stored version of its file',
        params: LinkParams,
        response: { 200: OkBody, ...linkErrors },
      },
    },
    async (request) => {
      await links.remove(principalOf(request), request.params.id);
      return { ok: true };
    },
  );

  settingRoute('active', 'Activate or deactivate', Type.Object({ isActive: Type.Boolean() }), OkBody, async (principal, id, body) => {
    await links.setActive(principal, id, body.isActive);
    return { ok: true };
  });

  settingRoute(
    'password',
    'Set the visitor password; an empty string removes it',
    Type.Object({ password: Type.String({ maxLength: 256 }) }),
    Type.Object({ ok: Type.Boolean(), hasPassword: Type.Boolean() }),
    async (principal, id, body) => ({ ok: true, hasPassword: await links.setPassword(principal, id, body.password) }),
  );

  settingRoute(
    'watermark',
    "Burn the visitor's identity into every page",
    Type.Object({ hasWatermark: Type.Boolean() }),
    Type.Object({ ok: Type.Boolean(), hasWatermark: Type.Boolean() }),
    async (principal, id, body) => {
      await links.setWatermark(principal, id, body.hasWatermark);
      return { ok: true, hasWatermark: body.hasWatermark };
    },
  );

  settingRoute(
    'approval',
    "Require the owner's approval before viewing",
    Type.Object({ requiresApproval: Type.Boolean() }),
    Type.Object({ ok: Type.Boolean(), requiresApproval: Type.Boolean() }),
    async (principal, id, body) => {
      await links.setApproval(principal, id, body.requiresApproval);
      return { ok: true, requiresApproval: body.requiresApproval };
    },
  );

  settingRoute(
    'otp',
    'Require an e-mailed one-time code from an allowed address or domain',
    Type.Object({
      requiresOtp: Type.Boolean(),
      allowedEmails: Type.Optional(Type.Array(Type.String({ maxLength: 254 }), { maxItems: 1000 })),
      allowedDomains: Type.Optional(Type.Array(Type.String({ maxLength: 253 }), { maxItems: 1000 })),
    }),
    OkBody,
    async (principal, id, body) => {
      await links.setOtp(principal, id, body);
      return { ok: true };
    },
  );

  settingRoute(
    'booking-url',
    'Show a scheduling or custom URL in the viewer; an empty string clears it',
    Type.Object({ booking_url: Type.String({ maxLength: 2048 }) }),
    OkBody,
    async (principal, id, body) => {
      await links.setBookingUrl(principal, id, body.booking_url);
      return { ok: true };
    },
  );

  app.put(
    '/:id/preview-image',
    {
      schema: {
        tags,
        operationId: 'setLinkPreviewImage',
        summary: 'The picture link previews show (multipart/form-data, field "image": PNG, JPEG or WebP, at most 2 MB)',
        consumes: ['multipart/form-data'],
        body: streamedForm(Type.Object({ image: Type.String({ format: 'binary' }) })),
        params: LinkParams,
        response: { 200: LinkDetail, ...linkErrors, 413: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => links.setPreviewImage(principalOf(request), request.params.id, await readPreviewImage(request)),
  );

  app.delete(
    '/:id/preview-image',
    {
      schema: {
        tags,
        operationId: 'deleteLinkPreviewImage',
        summary: 'Remove the preview picture',
        params: LinkParams,
        response: { 200: OkBody, ...linkErrors },
      },
    },
    async (request) => {
      await links.removePreviewImage(principalOf(request), request.params.id);
      return { ok: true };
    },
  );

  app.route({
    method: 'PUT',
    url: '/:id/file',
    schema: {
      tags,
      operationId: 'replaceLinkFile',
      summary: 'Upload a new version of the file under the same URL (multipart/form-data, field "file")',
      consumes: ['multipart/form-data'],
      body: streamedForm(Type.Object({ file: Type.String({ format: 'binary', description: 'the new version, at most 100 MB' }) })),
      params: LinkParams,
      headers: IdempotencyHeaders,
      response: { 200: Type.Object({ ok: Type.Boolean(), version: Type.Integer() }), ...linkErrors, 413: ErrorBody, 422: ErrorBody },
    },
    handler: async (request: FastifyRequest<{ Params: { id: string }; Headers: { 'idempotency-key'?: string } }>, reply: FastifyReply) =>
      answerOf(
        reply,
        await uploads.replaceFile(
          principalOf(request),
          request.params.id,
          (blobKey) => receiveUpload(request, intake, blobKey),
          request.headers['idempotency-key'],
        ),
      ),
  });
};

import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { sendCsv } from '../../core/file-response.js';
import { ErrorBody, NullableString, StringId, authErrors } from '../../core/schemas.js';
import { EVENT_TYPES, LINK_LIMITS } from '../events/event-types.js';
import { MAX_LISTED_VISITORS, type AnalyticsService } from './analytics.service.js';

const tags = ['Analytics'];
const Count = Type.Integer({ minimum: 0 });
const Visitor = Type.Union([Type.String(), Type.Null()], { description: 'the e-mail, else the IP masked (203.0.113.x, 2001:db8:…)' });

const ViewsByDay = Type.Array(Type.Object({ date: Type.String({ format: 'date' }), views: Count }), {
  description: 'the last 30 UTC days, oldest first, today included',
});

const GlobalAnalytics = Type.Object({
  metrics: Type.Object({
    totalViews: Count,
    uniqueVisitors: Count,
    totalLinks: Count,
    activeLinks: Count,
    pendingRequests: Count,
    totalDownloads: Count,
  }),
  topLinks: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), views: Count }), { description: 'the 10 most viewed links' }),
  recentActivity: Type.Array(
    Type.Object({
      type: Type.String({ enum: [...EVENT_TYPES] }),
      linkId: NullableString(),
      linkName: Type.String(),
      visitor: Visitor,
      limit: Type.Optional(
        Type.String({
          enum: [...LINK_LIMITS],
          description: "link.limit_reached: which of the link's hourly limits was reached (it then holds every visitor until the hour ends)",
        }),
      ),
      at: Type.String({ format: 'date-time' }),
    }),
    { description: 'the 20 latest events, newest first' },
  ),
  charts: Type.Object({ viewsByDay: ViewsByDay }),
});

const LinkAnalytics = Type.Object({
  link: Type.Object({ id: Type.String(), name: Type.String() }),
  views: Count,
  blockedAttempts: Type.Integer({ minimum: 0, description: 'visitors refused by the link or account block list' }),
  uniqueVisitors: Count,
  totalSeconds: Count,
  averageSeconds: Type.Integer({ minimum: 0, description: 'time on the document per view' }),
  pages: Type.Array(Type.Object({ page: Type.Integer(), seconds: Count })),
  visitors: Type.Array(
    Type.Object({
      visitor: Type.String({ description: 'their e-mail, with " (not verified)" when a view only typed it; else their masked IP' }),
      emailVerified: Type.Union([Type.Boolean(), Type.Null()], {
        description:
          'true when a one-time code proved the address in every view, false when a view only typed it; null without an address, or for views counted before this was recorded',
      }),
      views: Count,
      seconds: Count,
      pagesSeen: Type.Integer({ minimum: 0, description: 'distinct pages seen over all their views' }),
      userAgent: Type.Union([Type.String(), Type.Null()], { description: 'the User-Agent of their latest view, when the browser sent one' }),
      firstViewAt: Type.String({ format: 'date-time' }),
      lastViewAt: Type.String({ format: 'date-time' }),
    }),
    { description: `one per visitor (e-mail, else IP), most recent first: as many as ?visitors= asks, at most ${MAX_LISTED_VISITORS}` },
  ),
  viewsByDay: ViewsByDay,
});

export const analyticsRoutes: FastifyPluginAsyncTypebox<{ analytics: AnalyticsService }> = async (app, { analytics }) => {
  app.get(
    '/analytics/global',
    {
      schema: {
        tags,
        operationId: 'getGlobalAnalytics',
        summary: 'Views, visitors, links, requests and downloads over the whole account',
        response: { 200: GlobalAnalytics, ...authErrors },
      },
    },
    async (request) => analytics.global(principalOf(request).accountId),
  );

  app.get(
    '/links/:id/analytics',
    {
      schema: {
        tags,
        operationId: 'getLinkAnalytics',
        summary: 'Views, visitors and time per page of one link; ?format=csv gives the visitors as CSV',
        params: Type.Object({ id: StringId }),
        querystring: Type.Object({
          format: Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json' }),
          visitors: Type.Integer({
            minimum: 0,
            maximum: MAX_LISTED_VISITORS,
            default: MAX_LISTED_VISITORS,
            description: 'how many of the latest visitors the JSON lists (the CSV lists every one)',
          }),
        }),
        response: {
          200: {
            content: {
              'application/json': { schema: LinkAnalytics },
              'text/csv': {
                schema: Type.String({ description: 'visitor,views,seconds,first_view_at,last_view_at,pages_seen,user_agent,email_verified' }),
              },
            },
          },
          ...authErrors,
          404: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request);
      if (request.query.format === 'json') return analytics.forLink(accountId, request.params.id, request.query.visitors);
      return sendCsv(reply, `analytics-${request.params.id}.csv`, await analytics.linkVisitorsCsv(accountId, request.params.id));
    },
  );
};

import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { authErrors } from '../../core/schemas.js';
import { VIEW_ALERT_MODES, type ViewAlertsService } from './view-alerts.service.js';

const tags = ['Sharing controls'];
const Settings = Type.Object({
  mode: Type.Enum([...VIEW_ALERT_MODES], {
    description: "each: an e-mail per visitor and link per hour (default); daily: one digest of the previous UTC day's views",
  }),
});

/** How the account hears of views of links whose notifyOnView is on. */
export const viewAlertsRoutes: FastifyPluginAsyncTypebox<{ viewAlerts: ViewAlertsService }> = async (app, { viewAlerts }) => {
  app.get(
    '',
    { schema: { tags, operationId: 'getViewAlerts', summary: "The account's view alert mode", response: { 200: Settings, ...authErrors } } },
    async (request) => ({ mode: await viewAlerts.mode(principalOf(request).accountId) }),
  );

  app.put(
    '',
    {
      config: { area: 'sharing-policy' },
      schema: {
        tags,
        operationId: 'setViewAlerts',
        summary: 'Choose an e-mail per view or a daily digest',
        body: Settings,
        response: { 200: Settings, ...authErrors },
      },
    },
    async (request) => ({ mode: await viewAlerts.setMode(principalOf(request), request.body.mode) }),
  );
};

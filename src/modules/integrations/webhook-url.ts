import { unprocessable } from '../../core/errors.js';
import type { IntegrationType } from './integrations.repo.js';

/** The hosts each chat service posts incoming webhooks from; nothing else is accepted. */
const PROVIDER_HOSTS: Record<IntegrationType, { exact: string[]; suffixes: string[] }> = {
  slack: { exact: ['hooks.slack.com'], suffixes: [] },
  // Office 365 connectors, and Power Automate "Workflows" (their replacement).
  teams: { exact: [], suffixes: ['.webhook.office.com', '.logic.azure.com', '.powerplatform.com'] },
};

const PROVIDER_NAMES: Record<IntegrationType, string> = { slack: 'Slack', teams: 'Microsoft Teams' };

export const webhookUrlContext = (accountId: number) => `integration.webhook_url:${accountId}`;

/**
 * The webhook URL as it will be stored, or a 422: https, on the provider's own host, on the
 * default port, without credentials. `allowPrivate` (tests only) accepts any http(s) URL so
 * tests can post to local receivers.
 */
export function assertProviderWebhookUrl(type: IntegrationType, raw: string, allowPrivate: boolean): string {
  const name = PROVIDER_NAMES[type];
  if (!URL.canParse(raw)) throw unprocessable(`config.webhook_url must be a ${name} incoming-webhook URL`);
  const url = new URL(raw);
  if (allowPrivate && (url.protocol === 'https:' || url.protocol === 'http:')) return url.href;
  const { exact, suffixes } = PROVIDER_HOSTS[type];
  const onProviderHost = exact.includes(url.hostname) || suffixes.some((suffix) => url.hostname.endsWith(suffix));
  if (url.protocol !== 'https:' || !onProviderHost || url.port !== '' || url.username !== '' || url.password !== '') {
    const hosts = [...exact, ...suffixes.map((suffix) => `*${suffix}`)].join(', ');
    throw unprocessable(`config.webhook_url must be an https URL on ${hosts} for a ${name} integration`);
  }
  return url.href;
}

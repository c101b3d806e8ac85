import { visitorLabel, type EventType, type LinkLimit, type RecordedEvent } from '../events/event-types.js';

/** An event told in words; `link`, `who` and `amount` arrive already formatted for the target service. */
interface EventStory {
  title: string;
  sentence(link: string, who: string, amount: string | null): string;
}

const STORIES: Record<Exclude<EventType, 'link.limit_reached'>, EventStory> = {
  'link.viewed': { title: 'Link viewed', sentence: (link, who) => `${who} viewed ${link}` },
  'link.downloaded': { title: 'Original downloaded', sentence: (link, who) => `${who} downloaded the original of ${link}` },
  'access.requested': { title: 'Access requested', sentence: (link, who) => `${who} asks to view ${link}` },
  'access.approved': { title: 'Access approved', sentence: (link, who) => `${who} may now view ${link}` },
  'access.denied': { title: 'Access denied', sentence: (link, who) => `${who} was refused access to ${link}` },
  'link.expired': { title: 'Link expired', sentence: (link) => `${link} has expired` },
  'agreement.accepted': { title: 'Agreement accepted', sentence: (link, who) => `${who} accepted the agreement of ${link}` },
  'purchase.completed': { title: 'Purchase completed', sentence: (link, who, amount) => `${who} bought ${link}${amount ? ` for ${amount}` : ''}` },
};

const LIMIT_STORIES: Record<LinkLimit, EventStory> = {
  password: {
    title: 'Password tries used up',
    sentence: (link) =>
      `Wrong passwords tried on ${link} reached this hour's limit: visitors wait until the hour ends, or until you set a new password`,
  },
  code: {
    title: 'E-mail codes used up',
    sentence: (link) => `${link} has sent this hour's limit of e-mail codes: new visitors get no code until the hour ends`,
  },
  'access-request': {
    title: 'Access requests used up',
    sentence: (link) => `${link} has had this hour's limit of access requests: new visitors cannot ask until the hour ends`,
  },
  agreement: {
    title: 'Agreement acceptances used up',
    sentence: (link) => `${link} has had this hour's limit of agreement acceptances: new visitors cannot accept until the hour ends`,
  },
};

const storyOf = (event: RecordedEvent): EventStory =>
  event.type === 'link.limit_reached' ? LIMIT_STORIES[event.payload.limit ?? 'password'] : STORIES[event.type];

const FALLBACK_VISITOR: Partial<Record<EventType, string>> = { 'link.downloaded': 'A download-token holder', 'link.limit_reached': 'Many visitors' };

function amountOf(event: RecordedEvent): string | null {
  const { amount, currency } = event.payload;
  if (amount === undefined || !currency) return null;
  try {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() });
    return format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
  } catch {
    return `${amount} ${currency}`;
  }
}

/** The parts both formats show: what happened, to which link, by whom, when. */
function describe(event: RecordedEvent) {
  return {
    story: storyOf(event),
    linkName: event.payload.linkName,
    visitor: visitorLabel(event.payload) ?? FALLBACK_VISITOR[event.type] ?? 'Someone',
    amount: amountOf(event),
    at: new Date(event.createdAt).toISOString().replace('T', ' ').slice(0, 16) + ' UTC',
  };
}

// Slack mrkdwn treats only these three as control characters.
const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A Slack incoming-webhook message: a plain `text` fallback (notifications) plus blocks. */
export function slackMessage(event: RecordedEvent, viewerUrl: string | null, channel: string) {
  const { story, linkName, visitor, amount, at } = describe(event);
  const [name, who, price] = [slackEscape(linkName), slackEscape(visitor), amount && slackEscape(amount)];
  const linked = viewerUrl ? `*<${slackEscape(viewerUrl)}|${name.replace(/\|/g, '¦')}>*` : `*${name}*`;
  return {
    ...(channel ? { channel } : {}),
    // The fallback is mrkdwn too: unescaped, a file named "<!channel>" would ping everyone.
    text: story.sentence(`"${name}"`, who, price),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: story.sentence(linked, who, price) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `${story.title} · \`${event.type}\` · ${at}` }] },
    ],
  };
}

/**
 * A Teams message carrying an Adaptive Card with a title, a sentence and what follows them:
 * the format both Workflows (Power Automate) webhooks and the older Office 365 connectors accept.
 */
function adaptiveCardMessage(title: string, sentence: string, more: { facts?: Array<{ title: string; value: string }>; url?: string | null } = {}) {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: title, weight: 'Bolder', size: 'Medium', wrap: true },
            { type: 'TextBlock', text: sentence, wrap: true },
            ...(more.facts ? [{ type: 'FactSet', facts: more.facts }] : []),
          ],
          ...(more.url === undefined ? {} : { actions: more.url ? [{ type: 'Action.OpenUrl', title: 'Open the link', url: more.url }] : [] }),
        },
      },
    ],
  };
}

/** Teams reads card text as Markdown: a name typed as `[Sign in](https://evil.example)` would be a link in the channel. */
const teamsEscape = (text: string) => text.replace(/[\\`*_~[\]()#>|!]/g, '\\$&');

export function teamsMessage(event: RecordedEvent, viewerUrl: string | null) {
  const described = describe(event);
  const { story, amount, at } = described;
  const linkName = teamsEscape(described.linkName);
  const visitor = teamsEscape(described.visitor);
  const facts = [
    { title: 'Link', value: linkName },
    { title: 'Visitor', value: visitor },
    { title: 'Event', value: event.type },
    ...(amount ? [{ title: 'Amount', value: amount }] : []),
    { title: 'When', value: at },
  ];
  return adaptiveCardMessage(story.title, story.sentence(`"${linkName}"`, visitor, amount), { facts, url: viewerUrl });
}

const TEST_SENTENCE = 'linkvault is connected: views, downloads, access requests and purchases of this account will be posted here.';

/** The message "Send test message" posts, in the service's own format. */
export function testMessage(type: 'slack' | 'teams', channel: string) {
  if (type === 'slack') return { ...(channel ? { channel } : {}), text: TEST_SENTENCE };
  return adaptiveCardMessage('Test message', TEST_SENTENCE);
}

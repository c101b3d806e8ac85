import { oneLine, safeHttpUrl, textLines, truncate } from './safe-values.js';
import type { MailData, MailKind, MailStrings, PersonLinkStrings } from './types.js';

/** One piece of a message's body; both the HTML and the plain-text layouts know every kind. */
export type Block =
  | { kind: 'paragraph'; text: string }
  | { kind: 'note'; text: string }
  | { kind: 'code'; code: string }
  | { kind: 'button'; label: string; url: string }
  | { kind: 'quote'; title: string; lines: string[] }
  | { kind: 'facts'; rows: Array<[label: string, value: string]> }
  | { kind: 'command'; lines: string[] };

/** A message in one language, before layout: plain text everywhere, escaped only by the HTML layout. */
export interface MailContent {
  subject: string;
  /** The subject as the outbox keeps it once the message is sent, when `subject` carries a code. */
  maskedSubject?: string;
  preheader: string;
  heading: string;
  blocks: Block[];
}

/** How a one-time code reads in the subject the outbox keeps. */
const MASKED_CODE = '••••••';

const SUBJECT_NAME_MAX = 80;
const PERSONAL_MESSAGE_MAX = 2000;

export type ContentBuilder<K extends MailKind> = (strings: MailStrings, data: MailData[K]) => MailContent;

/** A button for the message's main URL, or nothing when the URL is not plain http(s). */
/** A visitor's address, said to be unproven where the visitor only typed it. */
const shownAddress = (strings: MailStrings, address: string, unverified: boolean) => (unverified ? strings.layout.unverified(address) : address);

function button(label: string, url: string): Block[] {
  const href = safeHttpUrl(url);
  return href ? [{ kind: 'button', label, url: href }] : [];
}

/** A message about one thing that happened: what, its facts, a button to see more, and a closing note. */
function factsToSee(intro: string, rows: Array<[label: string, value: string]>, see: Block[], note: string): Block[] {
  return [{ kind: 'paragraph', text: intro }, { kind: 'facts', rows }, ...see, { kind: 'note', text: note }];
}

interface Framing<D> {
  subject: (data: D) => string;
  preheader: (data: D) => string;
  heading: string;
}

/** The parts every message has, around its own blocks. */
function frame<D>(strings: Framing<D>, data: D, subjectData: D, blocks: Block[]): MailContent {
  return { subject: strings.subject(subjectData), preheader: strings.preheader(data), heading: strings.heading, blocks };
}

/** A message about a document: its name is cut in the subject only. */
function compose<D extends { documentName: string }>(strings: Framing<D>, data: D, blocks: Block[]): MailContent {
  return frame(strings, data, { ...data, documentName: truncate(data.documentName, SUBJECT_NAME_MAX) }, blocks);
}

/** The body of a message that carries one link: a sentence, the button, how long the link lasts, a note. */
function linkBody(text: { intro: string; button: string; validity: string; ignore: string }, url: string): Block[] {
  return [
    { kind: 'paragraph', text: text.intro },
    ...button(text.button, url),
    { kind: 'paragraph', text: text.validity },
    { kind: 'note', text: text.ignore },
  ];
}

/** A message to a person that carries one link (sign-in, reset, sign-up); it holds no user value but the URL. */
function personLink<K extends 'magicLink' | 'passwordReset' | 'signUp' | 'emailChange'>(
  s: PersonLinkStrings<K>,
  data: MailData[K] & { url: string },
): MailContent {
  return frame({ ...s, subject: () => s.subject }, data, data, linkBody({ ...s, validity: s.validity(data) }, data.url));
}

export const CONTENT_BUILDERS: { [K in MailKind]: ContentBuilder<K> } = {
  otpCode(strings, raw) {
    const s = strings.otpCode;
    const data = { ...raw, documentName: oneLine(raw.documentName), code: oneLine(raw.code) };
    const content = compose(s, data, [
      { kind: 'paragraph', text: s.intro(data) },
      { kind: 'code', code: data.code },
      { kind: 'paragraph', text: s.validity(data) },
      { kind: 'note', text: s.ignore },
    ]);
    return { ...content, maskedSubject: compose(s, { ...data, code: MASKED_CODE }, []).subject };
  },

  documentShared(strings, raw) {
    const s = strings.documentShared;
    const data = { ...raw, documentName: oneLine(raw.documentName), senderName: oneLine(raw.senderName) };
    const lines = raw.message ? textLines(truncate(raw.message, PERSONAL_MESSAGE_MAX)) : [];
    return compose(s, data, [
      { kind: 'paragraph', text: s.intro(data) },
      ...(lines.length > 0 ? [{ kind: 'quote', title: s.messageFrom(data), lines } as const] : []),
      ...button(s.button, data.viewerUrl),
    ]);
  },

  accessRequested(strings, raw) {
    const s = strings.accessRequested;
    const data = {
      ...raw,
      documentName: oneLine(raw.documentName),
      requesterEmail: shownAddress(strings, oneLine(raw.requesterEmail), raw.addressUnverified),
      visitorIp: oneLine(raw.visitorIp),
    };
    const path = `/api/links/${encodeURIComponent(oneLine(raw.linkId))}/requests/${encodeURIComponent(String(raw.requestId))}`;
    return compose(s, data, [
      { kind: 'paragraph', text: s.intro(data) },
      {
        kind: 'facts',
        rows: [
          [s.labels.email, data.requesterEmail],
          [s.labels.ip, data.visitorIp],
          [s.labels.requestId, String(data.requestId)],
        ],
      },
      ...button(s.button, raw.reviewUrl),
      { kind: 'paragraph', text: s.approveHowTo },
      { kind: 'command', lines: [`PATCH ${path}`, JSON.stringify({ status: 'approved' })] },
      { kind: 'paragraph', text: s.denyHowTo(JSON.stringify({ status: 'denied' })) },
      { kind: 'note', text: s.outcome },
    ]);
  },

  accessApproved(strings, raw) {
    const s = strings.accessApproved;
    const data = { ...raw, documentName: oneLine(raw.documentName) };
    return compose(s, data, [{ kind: 'paragraph', text: s.intro(data) }, ...button(s.button, data.viewerUrl)]);
  },

  accessDenied(strings, raw) {
    const s = strings.accessDenied;
    const data = { ...raw, documentName: oneLine(raw.documentName) };
    return compose(s, data, [
      { kind: 'paragraph', text: s.intro(data) },
      { kind: 'paragraph', text: s.followUp },
    ]);
  },

  purchaseReceipt(strings, raw) {
    const s = strings.purchaseReceipt;
    const data = { ...raw, documentName: oneLine(raw.documentName), amountFormatted: oneLine(raw.amountFormatted) };
    return compose(s, data, [
      { kind: 'paragraph', text: s.intro(data) },
      {
        kind: 'facts',
        rows: [
          [s.labels.document, data.documentName],
          [s.labels.amount, data.amountFormatted],
        ],
      },
      ...button(s.button, data.downloadUrl),
      { kind: 'paragraph', text: s.limits(data) },
      { kind: 'note', text: s.keepSafe },
    ]);
  },

  saleMade(strings, raw) {
    const s = strings.saleMade;
    const data = {
      ...raw,
      documentName: oneLine(raw.documentName),
      buyerEmail: oneLine(raw.buyerEmail),
      amountFormatted: oneLine(raw.amountFormatted),
    };
    const rows: Array<[string, string]> = [
      [s.labels.buyer, data.buyerEmail],
      [s.labels.document, data.documentName],
      [s.labels.amount, data.amountFormatted],
    ];
    return compose(s, data, factsToSee(s.intro(data), rows, button(s.button, raw.analyticsUrl), s.footer));
  },

  invitation(strings, raw) {
    const s = strings.invitation;
    const data = { ...raw, accountName: oneLine(raw.accountName), inviterName: oneLine(raw.inviterName) };
    const subjectData = { ...data, accountName: truncate(data.accountName, SUBJECT_NAME_MAX) };
    return frame(s, data, subjectData, linkBody({ ...s, intro: s.intro(data), validity: s.validity(data) }, data.acceptUrl));
  },

  viewAlert(strings, raw) {
    const s = strings.viewAlert;
    const visitor = shownAddress(strings, oneLine(raw.visitor), raw.addressUnverified);
    const data = { ...raw, documentName: oneLine(raw.documentName), visitor, viewedAt: oneLine(raw.viewedAt) };
    const rows: Array<[string, string]> = [
      [s.labels.visitor, data.visitor],
      [s.labels.document, data.documentName],
      [s.labels.time, data.viewedAt],
    ];
    return compose(s, data, factsToSee(s.intro(data), rows, button(s.button, raw.analyticsUrl), s.footer));
  },

  viewDigest(strings, raw) {
    const s = strings.viewDigest;
    const views = raw.views.map((view) => ({
      ...view,
      documentName: truncate(oneLine(view.documentName), SUBJECT_NAME_MAX),
      visitor: shownAddress(strings, oneLine(view.visitor), view.addressUnverified),
      viewedAt: oneLine(view.viewedAt),
    }));
    const data = { ...raw, day: oneLine(raw.day), views };
    return frame(s, data, data, [
      { kind: 'paragraph', text: s.intro(data) },
      { kind: 'facts', rows: views.map((view): [string, string] => [view.viewedAt, s.line(view)]) },
      ...(data.more > 0 ? [{ kind: 'paragraph', text: s.more(data.more) } as const] : []),
      ...button(s.button, raw.analyticsUrl),
      { kind: 'note', text: s.footer },
    ]);
  },

  magicLink: (strings, data) => personLink(strings.magicLink, data),
  passwordReset: (strings, data) => personLink(strings.passwordReset, data),
  signUp: (strings, data) => personLink(strings.signUp, data),
  emailChange: (strings, data) => personLink(strings.emailChange, data),

  signInDeleted(strings) {
    const s = strings.signInDeleted;
    const data = {};
    return frame({ ...s, subject: () => s.subject, preheader: () => s.preheader }, data, data, [
      { kind: 'paragraph', text: s.intro },
      { kind: 'note', text: s.notYou },
    ]);
  },

  accountDeleted(strings, raw) {
    const s = strings.accountDeleted;
    const data = { accountName: oneLine(raw.accountName), by: raw.deletedBy === null ? s.operator : oneLine(raw.deletedBy) };
    const subjectData = { ...data, accountName: truncate(data.accountName, SUBJECT_NAME_MAX) };
    return frame({ ...s, preheader: () => s.preheader(data) }, data, subjectData, [
      { kind: 'paragraph', text: s.intro(data) },
      ...(raw.signInDeleted ? [{ kind: 'note' as const, text: s.signInDeleted }] : []),
    ]);
  },

  emailChanged(strings, raw) {
    const s = strings.emailChanged;
    const data = { newEmail: oneLine(raw.newEmail) };
    return frame({ ...s, subject: () => s.subject }, data, data, [
      { kind: 'paragraph', text: s.intro(data) },
      { kind: 'note', text: s.notYou },
    ]);
  },
};

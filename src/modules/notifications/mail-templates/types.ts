export const MAIL_LOCALES = ['en', 'es', 'fr', 'pt', 'it'] as const;
export type MailLocale = (typeof MAIL_LOCALES)[number];

export interface MailData {
  otpCode: { documentName: string; code: string; minutes: number };
  documentShared: {
    documentName: string;
    viewerUrl: string;
    /** The company name of the sharing account, or its owner's e-mail. */
    senderName: string;
    /** The owner's personal note: plain text, line breaks kept. */
    message?: string | null;
  };
  accessRequested: {
    documentName: string;
    requesterEmail: string;
    /** the visitor typed the address and no one-time code proved it */
    addressUnverified: boolean;
    visitorIp: string;
    requestId: number;
    linkId: string;
    /** The access requests on the dashboard, where it is approved or denied. */
    reviewUrl: string;
  };
  accessApproved: { documentName: string; viewerUrl: string };
  accessDenied: { documentName: string };
  purchaseReceipt: {
    documentName: string;
    /** Already formatted with its currency, e.g. "€12.00". */
    amountFormatted: string;
    downloadUrl: string;
    downloadsAllowed: number;
    validDays: number;
  };
  /** To whoever hears of the link's visitors: a buyer paid for its download. */
  saleMade: {
    documentName: string;
    buyerEmail: string;
    /** Already formatted with its currency, e.g. "€12.00". */
    amountFormatted: string;
    /** The link's analytics on the dashboard. */
    analyticsUrl: string;
  };
  invitation: { accountName: string; inviterName: string; role: 'owner' | 'admin' | 'member'; acceptUrl: string; days: number };
  magicLink: { url: string; minutes: number };
  passwordReset: { url: string; minutes: number };
  signUp: { url: string; hours: number };
  emailChange: { url: string; minutes: number };
  /** To the address a person gave up: the one they sign in with now. */
  emailChanged: { newEmail: string };
  /** To the address of a sign-in its person deleted. */
  signInDeleted: Record<string, never>;
  /** To each other person of a deleted account; `deletedBy` is null when the server's operator did it. */
  accountDeleted: { accountName: string; deletedBy: string | null; signInDeleted: boolean };
  /** `viewedAt` is already formatted, e.g. "2026-11-24 18:42 UTC". */
  viewAlert: {
    documentName: string;
    visitor: string;
    addressUnverified: boolean;
    viewedAt: string;
    /** The link's analytics on the dashboard. */
    analyticsUrl: string;
  };
  /** `day` is the UTC date of the views, e.g. "2026-11-24"; `more` views beyond those listed. */
  viewDigest: {
    day: string;
    views: Array<{ documentName: string; visitor: string; addressUnverified: boolean; viewedAt: string }>;
    more: number;
    /** The account's analytics on the dashboard. */
    analyticsUrl: string;
  };
}

export type MailKind = keyof MailData;

/** A sentence built from a message's data; the values arrive cleaned (one line, no control characters). */
type Phrase<K extends MailKind> = (data: MailData[K]) => string;

/**
 * Every text of every message, one object per locale. The strings are plain text: the HTML
 * layout escapes them whole, so a translation can never inject markup and never needs entities.
 */
export interface MailStrings {
  /** BCP 47 tag for `<html lang>`. */
  htmlLang: string;
  layout: {
    sentBy: (companyName: string) => string;
    sentVia: string;
    /** Introduces the bare URL under a button, for clients that break buttons. */
    linkFallback: string;
    /** What joins a label to its value in the plain-text part (French puts a no-break space before it). */
    colon: string;
    /** A visitor's address as shown where nothing proved it (typed at an e-mail gate or in a request). */
    unverified: (address: string) => string;
  };
  otpCode: {
    subject: Phrase<'otpCode'>;
    preheader: Phrase<'otpCode'>;
    heading: string;
    intro: Phrase<'otpCode'>;
    validity: Phrase<'otpCode'>;
    ignore: string;
  };
  documentShared: {
    subject: Phrase<'documentShared'>;
    preheader: Phrase<'documentShared'>;
    heading: string;
    intro: Phrase<'documentShared'>;
    messageFrom: Phrase<'documentShared'>;
    button: string;
  };
  accessRequested: {
    subject: Phrase<'accessRequested'>;
    preheader: Phrase<'accessRequested'>;
    heading: string;
    intro: Phrase<'accessRequested'>;
    labels: { email: string; ip: string; requestId: string };
    /** Opens the access requests on the dashboard. */
    button: string;
    /** Followed by the API call that approves, for those who work through the API. */
    approveHowTo: string;
    /** `denyBody` is the JSON body that denies, e.g. {"status":"denied"}. */
    denyHowTo: (denyBody: string) => string;
    outcome: string;
  };
  accessApproved: {
    subject: Phrase<'accessApproved'>;
    preheader: Phrase<'accessApproved'>;
    heading: string;
    intro: Phrase<'accessApproved'>;
    button: string;
  };
  accessDenied: {
    subject: Phrase<'accessDenied'>;
    preheader: Phrase<'accessDenied'>;
    heading: string;
    intro: Phrase<'accessDenied'>;
    followUp: string;
  };
  purchaseReceipt: {
    subject: Phrase<'purchaseReceipt'>;
    preheader: Phrase<'purchaseReceipt'>;
    heading: string;
    intro: Phrase<'purchaseReceipt'>;
    labels: { document: string; amount: string };
    button: string;
    limits: Phrase<'purchaseReceipt'>;
    keepSafe: string;
  };
  saleMade: {
    subject: Phrase<'saleMade'>;
    preheader: Phrase<'saleMade'>;
    heading: string;
    intro: Phrase<'saleMade'>;
    labels: { buyer: string; document: string; amount: string };
    /** Opens the link's analytics. */
    button: string;
    /** What the buyer got, and where the money goes. */
    footer: string;
  };
  invitation: {
    subject: Phrase<'invitation'>;
    preheader: Phrase<'invitation'>;
    heading: string;
    intro: Phrase<'invitation'>;
    button: string;
    validity: Phrase<'invitation'>;
    ignore: string;
  };
  viewAlert: {
    subject: Phrase<'viewAlert'>;
    preheader: Phrase<'viewAlert'>;
    heading: string;
    intro: Phrase<'viewAlert'>;
    labels: { visitor: string; document: string; time: string };
    /** Opens the link's analytics. */
    button: string;
    /** How often such alerts come and where, on the dashboard, they are switched off. */
    footer: string;
  };
  viewDigest: {
    subject: Phrase<'viewDigest'>;
    preheader: Phrase<'viewDigest'>;
    heading: string;
    intro: Phrase<'viewDigest'>;
    /** One listed view: "visitor opened document". */
    line: (view: { documentName: string; visitor: string }) => string;
    more: (count: number) => string;
    /** Opens the account's analytics. */
    button: string;
    footer: string;
  };
  magicLink: PersonLinkStrings<'magicLink'>;
  passwordReset: PersonLinkStrings<'passwordReset'>;
  signUp: PersonLinkStrings<'signUp'>;
  emailChange: PersonLinkStrings<'emailChange'>;
  emailChanged: {
    subject: string;
    preheader: Phrase<'emailChanged'>;
    heading: string;
    intro: Phrase<'emailChanged'>;
    /** What to do when the reader did not make the change. */
    notYou: string;
  };
  signInDeleted: {
    subject: string;
    preheader: string;
    heading: string;
    intro: string;
    /** What to do when the reader did not do it. */
    notYou: string;
  };
  accountDeleted: {
    subject: (data: { accountName: string }) => string;
    preheader: (data: { by: string }) => string;
    heading: string;
    intro: (data: { accountName: string; by: string }) => string;
    /** Who `by` is when the server's operator deleted the account. */
    operator: string;
    /** Said when it was the reader's only account. */
    signInDeleted: string;
  };
}

/** A message to a person that carries one link: a heading, a sentence, the button, its validity, a note. */
export interface PersonLinkStrings<K extends MailKind> {
  subject: string;
  preheader: Phrase<K>;
  heading: string;
  intro: string;
  button: string;
  validity: Phrase<K>;
  ignore: string;
}

import type { MailStrings } from './types.js';

const q = (name: string) => `“${name}”`;
const plural = (n: number, one: string, other: string) => `${n} ${n === 1 ? one : other}`;

const EN_ROLES = { owner: 'an owner', admin: 'an admin', member: 'a member' } as const;

export const en: MailStrings = {
  htmlLang: 'en',
  layout: {
    sentBy: (company) => `Sent by ${company} via linkvault`,
    sentVia: 'Sent via linkvault',
    linkFallback: 'If the button doesn’t work, copy and paste this link into your browser:',
    colon: ':',
    unverified: (address) => `${address} (not verified)`,
  },
  otpCode: {
    subject: (d) => `${d.code} is your code to view ${q(d.documentName)}`,
    preheader: (d) => `It’s valid for ${plural(d.minutes, 'minute', 'minutes')}.`,
    heading: 'Your verification code',
    intro: (d) => `Enter this code to open ${q(d.documentName)}:`,
    validity: (d) => `The code is valid for ${plural(d.minutes, 'minute', 'minutes')}.`,
    ignore: 'If you didn’t request this code, you can safely ignore this email. Never share it with anyone.',
  },
  documentShared: {
    subject: (d) => `${d.senderName} shared ${q(d.documentName)} with you`,
    preheader: () => 'Open it right in your browser.',
    heading: 'A document has been shared with you',
    intro: (d) => `${d.senderName} has shared the document ${q(d.documentName)} with you.`,
    messageFrom: (d) => `A message from ${d.senderName}:`,
    button: 'View document',
  },
  accessRequested: {
    subject: (d) => `${d.requesterEmail} is asking to view ${q(d.documentName)}`,
    preheader: () => 'Approve or deny it on the dashboard.',
    heading: 'New access request',
    intro: (d) => `${d.requesterEmail} has asked for access to ${q(d.documentName)}.`,
    labels: { email: 'Email', ip: 'IP address', requestId: 'Request ID' },
    button: 'Review the request',
    approveHowTo: 'Or approve it through the API with this request:',
    denyHowTo: (body) => `To deny it, send the same request with ${body} instead.`,
    outcome: 'The visitor will be notified of your decision by email.',
  },
  accessApproved: {
    subject: (d) => `You can now view ${q(d.documentName)}`,
    preheader: () => 'Your access request has been approved.',
    heading: 'Access granted',
    intro: (d) => `Good news: your request to view ${q(d.documentName)} has been approved.`,
    button: 'View document',
  },
  accessDenied: {
    subject: (d) => `Your request to view ${q(d.documentName)} was declined`,
    preheader: () => 'The owner of the document has declined your request.',
    heading: 'Request declined',
    intro: (d) => `The person who shared ${q(d.documentName)} has declined your request for access.`,
    followUp: 'If you think this is a mistake, please get in touch with whoever sent you the link.',
  },
  purchaseReceipt: {
    subject: (d) => `Your receipt for ${q(d.documentName)}`,
    preheader: () => 'Your download link is ready.',
    heading: 'Thank you for your purchase',
    intro: (d) => `We’ve received your payment of ${d.amountFormatted} for ${q(d.documentName)}.`,
    labels: { document: 'Document', amount: 'Amount paid' },
    button: 'Download the file',
    limits: (d) =>
      `You can use this link to download the file ${d.downloadsAllowed === 1 ? 'once' : `up to ${d.downloadsAllowed} times`} ` +
      `${d.validDays === 1 ? 'within the next 24 hours' : `over the next ${d.validDays} days`}.`,
    keepSafe: 'Keep this email and don’t forward it: anyone with the link can download the file.',
  },
  saleMade: {
    subject: (d) => `${q(d.documentName)} was bought for ${d.amountFormatted}`,
    preheader: (d) => `Bought by ${d.buyerEmail}.`,
    heading: 'You made a sale',
    intro: (d) => `${d.buyerEmail} bought ${q(d.documentName)} for ${d.amountFormatted}.`,
    labels: { buyer: 'Buyer', document: 'Document', amount: 'Amount' },
    button: 'Open its analytics',
    footer: 'The buyer has a receipt with their download link. The payment goes to your connected Stripe account.',
  },
  invitation: {
    subject: (d) => `${d.inviterName} invited you to join ${d.accountName} on linkvault`,
    preheader: (d) => `Join as ${EN_ROLES[d.role]}.`,
    heading: 'You’re invited',
    intro: (d) => `${d.inviterName} has invited you to join ${q(d.accountName)} on linkvault as ${EN_ROLES[d.role]}.`,
    button: 'Accept the invitation',
    validity: (d) => `The invitation is valid for ${plural(d.days, 'day', 'days')}.`,
    ignore: 'If you weren’t expecting this, you can ignore this email.',
  },
  viewAlert: {
    subject: (d) => `${d.visitor} opened ${q(d.documentName)}`,
    preheader: (d) => `${d.viewedAt}`,
    heading: 'Your document was opened',
    intro: (d) => `${d.visitor} has just opened ${q(d.documentName)}.`,
    labels: { visitor: 'Visitor', document: 'Document', time: 'Time' },
    button: 'Open its analytics',
    footer:
      'You get one such email per visitor and document per hour. To stop them for this document, turn off “E-mail me when someone views” in its settings on the dashboard, or for all of yours under Settings › Profile; for one digest a day instead, change View alerts under Settings › Sharing policy.',
  },
  viewDigest: {
    subject: (d) => `${plural(d.views.length + d.more, 'view', 'views')} of your documents on ${d.day}`,
    preheader: (d) => `Who opened what on ${d.day}.`,
    heading: 'Your daily views',
    intro: (d) => `On ${d.day} (UTC), your documents were opened ${plural(d.views.length + d.more, 'time', 'times')}:`,
    line: (v) => `${v.visitor} opened ${q(v.documentName)}`,
    more: (n) => `…and ${plural(n, 'more view', 'more views')}.`,
    button: 'Open the analytics',
    footer:
      'This digest replaces an email per view. Switch back to one email per view under Settings › Sharing policy › View alerts on the dashboard.',
  },
  magicLink: {
    subject: 'Your linkvault sign-in link',
    preheader: (d) => `It works once, for ${plural(d.minutes, 'minute', 'minutes')}.`,
    heading: 'Sign in to linkvault',
    intro: 'Use the button below to sign in.',
    button: 'Sign in',
    validity: (d) => `The link works once and is valid for ${plural(d.minutes, 'minute', 'minutes')}.`,
    ignore: 'If you didn’t ask for it, ignore this email: nobody can sign in without the link.',
  },
  passwordReset: {
    subject: 'Reset your linkvault password',
    preheader: (d) => `The link is valid for ${plural(d.minutes, 'minute', 'minutes')}.`,
    heading: 'Reset your password',
    intro: 'We received a request to reset your linkvault password.',
    button: 'Choose a new password',
    validity: (d) => `The link works once and is valid for ${plural(d.minutes, 'minute', 'minutes')}.`,
    ignore: 'If you didn’t ask for a reset, ignore this email: your password stays as it is.',
  },
  signUp: {
    subject: 'Confirm your email for linkvault',
    preheader: (d) => `The link is valid for ${plural(d.hours, 'hour', 'hours')}.`,
    heading: 'Confirm your email',
    intro: 'Confirm your email address to create your linkvault account.',
    button: 'Confirm and continue',
    validity: (d) => `The link works once and is valid for ${plural(d.hours, 'hour', 'hours')}.`,
    ignore: 'If you didn’t sign up, you can ignore this email.',
  },
  emailChange: {
    subject: 'Confirm your new linkvault sign-in address',
    preheader: (d) => `The link is valid for ${plural(d.minutes, 'minute', 'minutes')}.`,
    heading: 'Confirm your new address',
    intro: 'You asked to sign in to linkvault with this address from now on.',
    button: 'Use this address',
    validity: (d) =>
      `The link works once and is valid for ${plural(d.minutes, 'minute', 'minutes')}. Until you open it, you sign in with your current address.`,
    ignore: 'If you didn’t ask for this, ignore this email: nothing changes without the link.',
  },
  emailChanged: {
    subject: 'Your linkvault sign-in address was changed',
    preheader: (d) => `You now sign in as ${d.newEmail}.`,
    heading: 'Your sign-in address changed',
    intro: (d) => `Your linkvault sign-in moved from this address to ${d.newEmail}. Sign-in and reset links sent here before no longer work.`,
    notYou: 'If you didn’t make this change, ask an owner of your account right away to remove that address from its members.',
  },
};

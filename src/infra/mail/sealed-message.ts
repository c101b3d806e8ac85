import type { MailOutboxRow } from '../../db/types.js';
import { seal, unseal } from '../crypto/sealed.js';

/** What a mail says: the subject as sent, the text, the HTML. */
export interface MailMessage {
  subject: string;
  text: string;
  html: string | null;
}

/**
 * The columns that hold a waiting row's message, sealed with the master key: it carries live
 * invitation, sign-in and download links and one-time codes, and freed pages, a WAL or a dead
 * tuple keep whatever a row once held.
 */
export type SealedMessage = Pick<MailOutboxRow, 'secret_subject' | 'text_body' | 'html_body'>;

type Column = keyof SealedMessage;

// The row's id is not known before its insert: each column is bound to the recipient and the time
// it was written instead, so a message moved to another row, or a row readdressed, no longer opens.
const contextOf = (column: Column, to: string, createdAt: number) => `mail_outbox.${column}:${to}:${createdAt}`;

/** `secretSubject`: the subject as sent when the row keeps a masked one, else null (the subject is kept as it is). */
export function sealMessage(
  masterKey: Buffer,
  message: { secretSubject: string | null; text: string; html: string | null },
  to: string,
  createdAt: number,
): SealedMessage {
  const sealed = (column: Column, value: string) => seal(masterKey, value, contextOf(column, to, createdAt));
  return {
    secret_subject: message.secretSubject === null ? null : sealed('secret_subject', message.secretSubject),
    text_body: sealed('text_body', message.text),
    html_body: message.html === null ? null : sealed('html_body', message.html),
  };
}

// A sealed value is one word, `v1.<nonce>.<box>`; the text of every mail has spaces, so a row queued
// in clear before messages were sealed is never taken for a sealed one, and is sent as it is.
const SEALED = /^v1\.[\w-]+\.[\w-]+$/;

/** Throws when the message was sealed under another key, or for another recipient or time. */
export function openMessage(masterKey: Buffer, row: MailOutboxRow): MailMessage {
  if (!SEALED.test(row.text_body)) return { subject: row.secret_subject ?? row.subject, text: row.text_body, html: row.html_body };
  const opened = (column: Column, value: string) => unseal(masterKey, value, contextOf(column, row.to_address, row.created_at));
  return {
    subject: row.secret_subject === null ? row.subject : opened('secret_subject', row.secret_subject),
    text: opened('text_body', row.text_body),
    html: row.html_body === null ? null : opened('html_body', row.html_body),
  };
}

import { CONTENT_BUILDERS, type ContentBuilder } from './content.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { it } from './it.js';
import { renderHtml, renderText, type LayoutParts } from './layout.js';
import { pt } from './pt.js';
import { safeBrand, safeSubject } from './safe-values.js';
import type { Brand } from '../../branding/brand.js';
import type { MailData, MailKind, MailLocale, MailStrings } from './types.js';

export { MAIL_LOCALES } from './types.js';
export type { MailData, MailKind, MailLocale, MailStrings } from './types.js';

const STRINGS: Record<MailLocale, MailStrings> = { en, es, fr, pt, it };

export interface RenderedMail {
  subject: string;
  /** The subject the outbox keeps once the message is sent, when `subject` carries a one-time code. */
  maskedSubject?: string;
  text: string;
  html: string;
}

/**
 * One message in the account's language and brand, ready for `mailer.enqueue`. Values from
 * users and brands are escaped in the HTML, kept to one line where they should be one, and
 * the subject never carries a line break.
 */
export function renderMail<K extends MailKind>(kind: K, locale: MailLocale, data: MailData[K], brand: Brand): RenderedMail {
  const strings = STRINGS[locale] ?? STRINGS.en;
  const build: ContentBuilder<K> = CONTENT_BUILDERS[kind];
  const content = build(strings, data);
  const subject = safeSubject(content.subject);
  const safe = safeBrand(brand);
  const parts: LayoutParts = {
    lang: strings.htmlLang,
    footer: safe.companyName ? strings.layout.sentBy(safe.companyName) : strings.layout.sentVia,
    linkFallback: strings.layout.linkFallback,
    colon: strings.layout.colon,
  };
  return {
    subject,
    ...(content.maskedSubject !== undefined && { maskedSubject: safeSubject(content.maskedSubject) }),
    text: renderText(content, parts),
    html: renderHtml({ ...content, subject }, safe, parts),
  };
}

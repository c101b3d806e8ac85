import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_BRAND, type Brand } from '../../branding/brand.js';
import { MAIL_LOCALES, renderMail, type MailData, type MailKind, type MailLocale } from './index.js';

const brand: Brand = {
  companyName: 'Acme',
  logoUrl: 'https://cdn.example.com/acme/logo.png',
  logoSize: 48,
  primaryColor: '#ff0066',
  accentColor: '#d1004f',
  btnTextColor: '#ffffff',
  textColor: '#222222',
  bgColor: '#f0f0f0',
  cardBgColor: '#fafafa',
  cardBorderColor: '#cccccc',
  btnRadius: '6px',
};

// A query string with "&" checks that URLs are entity-encoded in the HTML and left alone in the text.
const viewerUrl = 'https://share.example.com/v/AbCdEf0123456789?utm=mail&x=1';
const downloadUrl = 'https://share.example.com/api/stripe/download-original/tok_123?a=1&b=2';
const analyticsUrl = 'https://share.example.com/app/documents/AbCdEf0123456789/analytics';

const samples: { [K in MailKind]: MailData[K] } = {
  otpCode: { documentName: 'Q3 Board Deck', code: '482913', minutes: 10 },
  documentShared: { documentName: 'Q3 Board Deck', viewerUrl, senderName: 'Acme' },
  accessRequested: {
    documentName: 'Q3 Board Deck',
    requesterEmail: 'ana@example.org',
    addressUnverified: false,
    visitorIp: '203.0.113.7',
    requestId: 42,
    linkId: 'AbCdEf0123456789',
    reviewUrl: 'https://share.example.com/app/requests',
  },
  accessApproved: { documentName: 'Q3 Board Deck', viewerUrl },
  accessDenied: { documentName: 'Q3 Board Deck' },
  purchaseReceipt: { documentName: 'Q3 Board Deck', amountFormatted: '€12.00', downloadUrl, downloadsAllowed: 5, validDays: 7 },
  saleMade: { documentName: 'Q3 Board Deck', buyerEmail: 'ana@example.org', amountFormatted: '€12.00', analyticsUrl },
  invitation: { accountName: 'Acme', inviterName: 'ada@example.com', role: 'admin', acceptUrl: viewerUrl, days: 7 },
  magicLink: { url: viewerUrl, minutes: 15 },
  passwordReset: { url: viewerUrl, minutes: 15 },
  signUp: { url: viewerUrl, hours: 24 },
  emailChange: { url: viewerUrl, minutes: 60 },
  emailChanged: { newEmail: 'ada.new@example.org' },
  accountDeleted: { accountName: 'Acme Capital', deletedBy: 'Ada Lovelace', signInDeleted: true },
  signInDeleted: {},
  viewAlert: { documentName: 'Q3 Board Deck', visitor: 'ana@example.org', addressUnverified: false, viewedAt: '2026-11-24 18:42 UTC', analyticsUrl },
  viewDigest: {
    day: '2026-11-24',
    views: [
      { documentName: 'Q3 Board Deck', visitor: 'ana@example.org', addressUnverified: true, viewedAt: '09:12 UTC' },
      { documentName: 'Term sheet', visitor: '203.0.113.x', addressUnverified: false, viewedAt: '17:40 UTC' },
    ],
    more: 3,
    analyticsUrl: 'https://share.example.com/app/analytics',
  },
};

/** Messages to the people who work in linkvault: no document, one link each. */
const PERSON_KINDS = ['invitation', 'magicLink', 'passwordReset', 'signUp', 'emailChange'] as const;
/** Notices to a person: no document, no link. */
const NOTICE_KINDS = ['emailChanged', 'accountDeleted', 'signInDeleted'] as const;
/** Messages about several documents: their names are in the body, not the subject. */
const DIGEST_KINDS = ['viewDigest'] as const;
/** Messages about a document, which all carry its name. */
const KINDS = (Object.keys(samples) as MailKind[]).filter((kind) => ![...PERSON_KINDS, ...DIGEST_KINDS, ...NOTICE_KINDS].includes(kind as never));

/** Written here by hand, not read from the locale files, so a wrong or untranslated string fails. */
const subjectWords: Record<MailKind, Record<MailLocale, string>> = {
  otpCode: { en: 'is your code', es: 'es tu código', fr: 'est votre code', pt: 'é o seu código', it: 'è il tuo codice' },
  documentShared: { en: 'shared', es: 'ha compartido', fr: 'a partagé', pt: 'compartilhou', it: 'ha condiviso' },
  accessRequested: { en: 'is asking to view', es: 'solicita acceso', fr: 'demande l’accès', pt: 'pediu acesso', it: 'chiede di accedere' },
  accessApproved: {
    en: 'You can now view',
    es: 'Ya puedes ver',
    fr: 'Vous pouvez maintenant consulter',
    pt: 'Você já pode acessar',
    it: 'Ora puoi visualizzare',
  },
  accessDenied: { en: 'was declined', es: 'Se ha denegado', fr: 'a été refusée', pt: 'foi recusada', it: 'è stata rifiutata' },
  purchaseReceipt: { en: 'receipt', es: 'Recibo de tu compra', fr: 'Votre reçu', pt: 'Recibo da sua compra', it: 'Ricevuta' },
  saleMade: { en: 'was bought for', es: 'se vendió por', fr: 'a été acheté pour', pt: 'foi comprado por', it: 'è stato acquistato per' },
  invitation: {
    en: 'invited you to join Acme',
    es: 'te ha invitado a Acme',
    fr: 'vous invite à rejoindre Acme',
    pt: 'convidou você para Acme',
    it: 'ti invita a unirti a Acme',
  },
  magicLink: { en: 'sign-in link', es: 'iniciar sesión', fr: 'lien de connexion', pt: 'link para entrar', it: 'link di accesso' },
  passwordReset: { en: 'Reset your', es: 'Restablece tu contraseña', fr: 'Réinitialisez', pt: 'Redefina sua senha', it: 'Reimposta la password' },
  viewAlert: { en: 'opened', es: 'abrió', fr: 'a ouvert', pt: 'abriu', it: 'ha aperto' },
  viewDigest: {
    en: '5 views of your documents on 2026-11-24',
    es: '5 visitas a tus documentos el 2026-11-24',
    fr: '5\u00a0consultations de vos documents le 2026-11-24',
    pt: '5 visualizações dos seus documentos em 2026-11-24',
    it: '5 visualizzazioni dei tuoi documenti il 2026-11-24',
  },
  emailChange: {
    en: 'Confirm your new linkvault sign-in address',
    es: 'Confirma tu nueva dirección',
    fr: 'Confirmez votre nouvelle adresse',
    pt: 'Confirme seu novo endereço',
    it: 'Conferma il nuovo indirizzo',
  },
  emailChanged: {
    en: 'sign-in address was changed',
    es: 'Se ha cambiado tu dirección',
    fr: 'adresse de connexion linkvault a changé',
    pt: 'endereço de acesso ao linkvault foi alterado',
    it: 'indirizzo di accesso a linkvault è cambiato',
  },
  signInDeleted: {
    en: 'Your linkvault sign-in was deleted',
    es: 'Se ha eliminado tu acceso a linkvault',
    fr: 'Votre connexion linkvault a été supprimée',
    pt: 'Seu acesso ao linkvault foi excluído',
    it: 'Il tuo accesso a linkvault è stato eliminato',
  },
  accountDeleted: {
    en: 'The linkvault account Acme Capital was deleted',
    es: 'Se ha eliminado la cuenta de linkvault Acme Capital',
    fr: 'Le compte linkvault Acme Capital a été supprimé',
    pt: 'A conta Acme Capital do linkvault foi excluída',
    it: 'L’account linkvault Acme Capital è stato eliminato',
  },
  signUp: {
    en: 'Confirm your email',
    es: 'Confirma tu correo',
    fr: 'Confirmez votre e-mail',
    pt: 'Confirme seu e-mail',
    it: 'Conferma la tua email',
  },
};

const bodyWords: Record<MailKind, Record<MailLocale, string>> = {
  invitation: {
    en: 'as an admin',
    es: 'como administrador',
    fr: 'en tant qu’administrateur',
    pt: 'como administrador',
    it: 'come amministratore',
  },
  magicLink: {
    en: 'valid for 15 minutes',
    es: 'válido durante 15 minutos',
    fr: 'valable 15\u00a0minutes',
    pt: 'válido por 15 minutos',
    it: 'valido per 15 minuti',
  },
  passwordReset: {
    en: 'your password stays as it is',
    es: 'tu contraseña no cambia',
    fr: 'votre mot de passe reste inchangé',
    pt: 'sua senha continua a mesma',
    it: 'la tua password resta invariata',
  },
  emailChange: {
    en: 'Until you open it, you sign in with your current address',
    es: 'Hasta que lo abras, inicias sesión con tu dirección actual',
    fr: 'vous vous connectez avec votre adresse actuelle',
    pt: 'o acesso continua com seu endereço atual',
    it: 'accedi con il tuo indirizzo attuale',
  },
  emailChanged: {
    en: 'moved from this address to ada.new@example.org',
    es: 'ha pasado de esta dirección a ada.new@example.org',
    fr: 'est passée de cette adresse à ada.new@example.org',
    pt: 'passou deste endereço para ada.new@example.org',
    it: 'è passato da questo indirizzo a ada.new@example.org',
  },
  signInDeleted: {
    en: 'links mailed to it before no longer work',
    es: 'los enlaces enviados antes a ella ya no funcionan',
    fr: 'les liens envoyés auparavant à cette adresse ne fonctionnent plus',
    pt: 'os links enviados a ele antes não funcionam mais',
    it: 'i link inviati prima a questo indirizzo non funzionano più',
  },
  accountDeleted: {
    en: 'Ada Lovelace deleted the account Acme Capital',
    es: 'Ada Lovelace eliminó la cuenta Acme Capital',
    fr: 'Ada Lovelace a supprimé le compte Acme Capital',
    pt: 'Ada Lovelace excluiu a conta Acme Capital',
    it: 'Ada Lovelace ha eliminato l’account Acme Capital',
  },
  signUp: {
    en: 'valid for 24 hours',
    es: 'válido durante 24 horas',
    fr: 'valable 24\u00a0heures',
    pt: 'válido por 24 horas',
    it: 'valido per 24 ore',
  },
  otpCode: {
    en: 'valid for 10 minutes',
    es: 'válido durante 10 minutos',
    fr: 'valable 10\u00a0minutes',
    pt: 'válido por 10 minutos',
    it: 'valido per 10 minuti',
  },
  documentShared: { en: 'with you', es: 'ha compartido contigo', fr: 'avec vous', pt: 'compartilhou o documento', it: 'ha condiviso con te' },
  accessRequested: {
    en: 'approve it through the API',
    es: 'apruébala desde la API',
    fr: 'acceptez-la depuis l’API',
    pt: 'aprove pela API',
    it: 'approvala tramite l’API',
  },
  accessApproved: { en: 'Good news', es: 'Buenas noticias', fr: 'Bonne nouvelle', pt: 'Boa notícia', it: 'Buone notizie' },
  accessDenied: {
    en: 'this is a mistake',
    es: 'se trata de un error',
    fr: 'il s’agit d’une erreur',
    pt: 'houve um engano',
    it: 'si tratti di un errore',
  },
  viewAlert: { en: 'has just opened', es: 'acaba de abrir', fr: 'vient d’ouvrir', pt: 'acabou de abrir', it: 'ha appena aperto' },
  viewDigest: {
    en: '…and 3 more views',
    es: '…y 3 visitas más',
    fr: '…et 3\u00a0autres consultations',
    pt: '…e mais 3 visualizações',
    it: '…e 3 altre visualizzazioni',
  },
  saleMade: {
    en: 'You made a sale',
    es: 'Has hecho una venta',
    fr: 'Vous avez fait une vente',
    pt: 'Você fez uma venda',
    it: 'Hai fatto una vendita',
  },
  purchaseReceipt: {
    en: 'up to 5 times over the next 7 days',
    es: 'hasta 5 veces durante los próximos 7 días',
    fr: 'jusqu’à 5 fois dans les 7 prochains jours',
    pt: 'até 5 vezes nos próximos 7 dias',
    it: 'fino a 5 volte nei prossimi 7 giorni',
  },
};

const footers: Record<MailLocale, string> = {
  en: 'Sent by Acme via linkvault',
  es: 'Enviado por Acme a través de linkvault',
  fr: 'Envoyé par Acme via linkvault',
  pt: 'Enviado por Acme via linkvault',
  it: 'Inviato da Acme tramite linkvault',
};

const htmlLangs: Record<MailLocale, string> = { en: 'en', es: 'es', fr: 'fr', pt: 'pt-BR', it: 'it' };

const escapeHtml = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function render<K extends MailKind>(kind: K, locale: MailLocale, data: Partial<MailData[K]> = {}, brandPatch: Partial<Brand> = {}) {
  return renderMail(kind, locale, { ...samples[kind], ...data }, { ...brand, ...brandPatch });
}

/** The values each message must carry, as they read in plain text. */
function keyValues(kind: MailKind): string[] {
  const values = ['Q3 Board Deck'];
  if (kind === 'otpCode') values.push('482913');
  if (kind === 'documentShared' || kind === 'accessApproved') values.push(viewerUrl);
  if (kind === 'purchaseReceipt') values.push(downloadUrl, '€12.00');
  if (kind === 'saleMade') values.push('ana@example.org', '€12.00', analyticsUrl);
  if (kind === 'viewAlert') values.push('ana@example.org', '2026-11-24 18:42 UTC');
  if (kind === 'viewDigest') values.push('ana@example.org', 'Term sheet', '203.0.113.x', '17:40 UTC');
  if (kind === 'accessRequested') {
    values.push(
      'ana@example.org',
      '203.0.113.7',
      'https://share.example.com/app/requests',
      'PATCH /api/links/AbCdEf0123456789/requests/42',
      '{"status":"approved"}',
      '{"status":"denied"}',
    );
  }
  return values;
}

describe('mail templates', () => {
  for (const kind of KINDS) {
    for (const locale of MAIL_LOCALES) {
      test(`${kind} in ${locale} renders in its language with its values`, () => {
        const mail = render(kind, locale);
        assert.ok(mail.subject.includes(subjectWords[kind][locale]), `subject: ${mail.subject}`);
        assert.ok(mail.text.includes(bodyWords[kind][locale]), `text: ${mail.text}`);
        assert.ok(mail.html.includes(bodyWords[kind][locale]), 'html body word');
        assert.ok(mail.text.includes(footers[locale]), 'text footer');
        assert.ok(mail.html.includes(footers[locale]), 'html footer');
        assert.match(mail.html, new RegExp(`^<!DOCTYPE html>\\n<html lang="${htmlLangs[locale]}"`));
        assert.ok(mail.subject.includes('Q3 Board Deck'));
        for (const value of keyValues(kind)) {
          assert.ok(mail.text.includes(value), `text lacks ${value}`);
          assert.ok(mail.html.includes(escapeHtml(value)), `html lacks ${value}`);
        }
        // The text part is written for reading, not HTML with the tags stripped.
        assert.doesNotMatch(mail.text, /<[a-z/!]/i);
        assert.doesNotMatch(mail.text, /&(amp|lt|gt|quot|#39);/);
      });
    }
  }

  for (const kind of DIGEST_KINDS) {
    for (const locale of MAIL_LOCALES) {
      test(`${kind} in ${locale} renders in its language with every view listed`, () => {
        const mail = render(kind, locale);
        assert.ok(mail.subject.includes(subjectWords[kind][locale]), `subject: ${mail.subject}`);
        assert.ok(mail.text.includes(bodyWords[kind][locale]), `text: ${mail.text}`);
        assert.ok(mail.html.includes(bodyWords[kind][locale]), 'html body word');
        assert.ok(mail.text.includes(footers[locale]), 'text footer');
        for (const value of keyValues(kind)) {
          assert.ok(mail.text.includes(value), `text lacks ${value}`);
          assert.ok(mail.html.includes(escapeHtml(value)), `html lacks ${value}`);
        }
      });
    }
  }

  for (const kind of PERSON_KINDS) {
    for (const locale of MAIL_LOCALES) {
      test(`${kind} in ${locale} renders in its language with its link as a button`, () => {
        const mail = render(kind, locale);
        assert.ok(mail.subject.includes(subjectWords[kind][locale]), `subject: ${mail.subject}`);
        assert.ok(mail.text.includes(bodyWords[kind][locale]), `text: ${mail.text}`);
        assert.ok(mail.html.includes(bodyWords[kind][locale]), 'html body word');
        assert.ok(mail.text.includes(viewerUrl), 'the link in the text part');
        assert.ok(mail.html.includes(`href="${escapeHtml(viewerUrl)}"`), 'the link as a button');
        assert.match(mail.html, new RegExp(`^<!DOCTYPE html>\\n<html lang="${htmlLangs[locale]}"`));
        assert.doesNotMatch(mail.subject, /[\r\n]/);
      });
    }
  }

  for (const kind of NOTICE_KINDS) {
    for (const locale of MAIL_LOCALES) {
      test(`${kind} in ${locale} renders in its language, with no button`, () => {
        const mail = render(kind, locale);
        assert.ok(mail.subject.includes(subjectWords[kind][locale]), `subject: ${mail.subject}`);
        assert.ok(mail.text.includes(bodyWords[kind][locale]), `text: ${mail.text}`);
        assert.ok(mail.html.includes(bodyWords[kind][locale]), 'html body word');
        assert.match(mail.html, new RegExp(`^<!DOCTYPE html>\\n<html lang="${htmlLangs[locale]}"`));
        assert.doesNotMatch(mail.html, /<a [^>]*href=/);
      });
    }
  }

  test('a changed sign-in address is told escaped in the HTML and on one line', () => {
    for (const locale of MAIL_LOCALES) {
      const mail = render('emailChanged', locale, { newEmail: '<b>x@evil.example</b>\r\nBcc: a@b.c' });
      assert.ok(mail.html.includes('&lt;b&gt;x@evil.example&lt;/b&gt; Bcc: a@b.c'), locale);
      assert.ok(!mail.html.includes('<b>x@evil'), locale);
      assert.ok(mail.text.includes('<b>x@evil.example</b> Bcc: a@b.c'), locale);
    }
  });

  test('a deleted account: its name and who deleted it escaped and on one line; the operator named in words; the sign-in said only when it went', () => {
    for (const locale of MAIL_LOCALES) {
      const hostile = render('accountDeleted', locale, { accountName: '<b>Acme</b>\r\nBcc: a@b.c', deletedBy: '<img src=x>' });
      assert.ok(hostile.html.includes('&lt;b&gt;Acme&lt;/b&gt; Bcc: a@b.c') && hostile.html.includes('&lt;img src=x&gt;'), locale);
      assert.ok(!hostile.html.includes('<b>Acme') && !hostile.html.includes('<img src=x'), locale);
      assert.doesNotMatch(hostile.subject, /[\r\n]/, locale);
      const byOperator = render('accountDeleted', locale, { deletedBy: null, signInDeleted: false });
      assert.ok(!byOperator.text.includes('null') && byOperator.text.length > 0, locale);
      assert.ok(byOperator.text.length < render('accountDeleted', locale, { deletedBy: null }).text.length, `${locale}: no word of the sign-in`);
    }
    assert.ok(render('accountDeleted', 'en', { deletedBy: null }).text.includes('The server’s operator deleted the account Acme Capital'));
  });

  test('invitation: the account and the inviter are escaped in the HTML and kept to one line in the subject', () => {
    for (const locale of MAIL_LOCALES) {
      const mail = render('invitation', locale, { accountName: '<b>Acme</b>\r\nBcc: a@b.c', inviterName: '<img src=x onerror=alert(1)>' });
      assert.ok(mail.html.includes('&lt;b&gt;Acme&lt;/b&gt; Bcc: a@b.c'), locale);
      assert.ok(!mail.html.includes('<b>Acme') && !mail.html.includes('<img src=x'), locale);
      assert.doesNotMatch(mail.subject, /[\r\n]/, `${locale}: ${JSON.stringify(mail.subject)}`);
      assert.ok(mail.subject.includes('<b>Acme</b> Bcc: a@b.c'), locale);
    }
  });

  test('view alerts and digests open the analytics on the dashboard and say in words, not API fields, where they are turned off', () => {
    for (const locale of MAIL_LOCALES) {
      for (const kind of ['viewAlert', 'viewDigest'] as const) {
        const mail = render(kind, locale);
        const url = samples[kind].analyticsUrl;
        assert.ok(mail.html.includes(`href="${escapeHtml(url)}"`), `${kind} in ${locale}: the analytics as a button`);
        assert.ok(mail.text.includes(url), `${kind} in ${locale}: the analytics in the text part`);
        assert.doesNotMatch(mail.text, /notifyOnView/, `${kind} in ${locale}`);
      }
    }
  });

  test('a person link that is not http(s) gives no button and no link, in every locale', () => {
    const url = 'javascript:alert(1)';
    for (const kind of PERSON_KINDS) {
      for (const locale of MAIL_LOCALES) {
        const mail = render(kind, locale, { url, acceptUrl: url } as Partial<MailData[typeof kind]>);
        assert.ok(!mail.html.includes('javascript:') && !mail.html.includes('<a '), `${kind}/${locale}`);
        assert.ok(!mail.text.includes('javascript:'), `${kind}/${locale}`);
        assert.ok(mail.subject.length > 0 && mail.text.includes(bodyWords[kind][locale]), `${kind}/${locale}: the rest still renders`);
      }
    }
  });

  test('the main URL is a brand-coloured button and the code stands on its own line', () => {
    const shared = render('documentShared', 'en');
    assert.ok(shared.html.includes(`href="${escapeHtml(viewerUrl)}"`));
    assert.ok(shared.html.includes('background-color:#ff0066;border-radius:6px;'));
    assert.ok(shared.html.includes('color:#ffffff;text-decoration:none;'));
    assert.ok(shared.text.includes(`View document:\n${viewerUrl}`));
    const otp = render('otpCode', 'en');
    assert.ok(otp.text.includes('\n    482913\n'));
  });

  test('the logo and the company name head the message; alt is the company name', () => {
    const mail = render('accessApproved', 'it');
    assert.ok(mail.html.includes('<img src="https://cdn.example.com/acme/logo.png" alt="Acme" height="48"'));
    assert.ok(mail.html.includes('height:48px'));
    assert.match(mail.html, />Acme<\/td>/);
  });

  test('no company name: a neutral footer and no header', () => {
    const mail = render('accessApproved', 'es', {}, { companyName: null, logoUrl: null });
    assert.ok(mail.text.includes('Enviado a través de linkvault'));
    assert.ok(!mail.html.includes('<img'));
    const en = render('accessDenied', 'en', {}, { companyName: '  ' });
    assert.ok(en.text.endsWith('-- \nSent via linkvault\n'));
  });

  test('every user and brand value is escaped in the HTML', () => {
    const evil = '<script>alert(1)</script>';
    for (const kind of KINDS) {
      for (const locale of MAIL_LOCALES) {
        const mail = render(
          kind,
          locale,
          { documentName: evil, senderName: `"><img src=x onerror=alert(1)>`, requesterEmail: `<b>x</b>@e.com` } as Partial<MailData[typeof kind]>,
          {
            companyName: `Evil "Co" <svg onload=alert(1)>`,
          },
        );
        assert.ok(!mail.html.includes('<script'), `${kind}/${locale}`);
        assert.ok(!mail.html.includes('<svg'), `${kind}/${locale}`);
        assert.ok(!mail.html.includes('<img src=x'), `${kind}/${locale}`);
        assert.ok(!mail.html.includes('<b>x'), `${kind}/${locale}`);
        assert.ok(mail.html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), `${kind}/${locale}`);
        assert.ok(mail.html.includes('alt="Evil &quot;Co&quot; &lt;svg onload=alert(1)&gt;"'), `${kind}/${locale}`);
        // The text part keeps the value as written: it is never interpreted.
        assert.ok(mail.text.includes(evil));
      }
    }
  });

  test('colours and radius that are not strict values fall back to the defaults', () => {
    const mail = render(
      'accessApproved',
      'en',
      {},
      {
        primaryColor: 'red;background:url(javascript:alert(1))',
        accentColor: 'red;x:url(javascript:alert(2))',
        btnTextColor: '#fff" onmouseover="alert(1)',
        bgColor: 'expression(alert(1))',
        textColor: '#12345',
        cardBgColor: 'rgb(0,0,0)',
        cardBorderColor: '#GGGGGG',
        btnRadius: '8px;background:red',
      },
    );
    for (const bad of ['javascript', 'onmouseover', 'expression', '#12345;', 'rgb(', '#GGGGGG', 'background:red']) {
      assert.ok(!mail.html.includes(bad), bad);
    }
    assert.ok(mail.html.includes(`background-color:${DEFAULT_BRAND.primaryColor};border-radius:${DEFAULT_BRAND.btnRadius};`));
    assert.ok(mail.html.includes(`color:${DEFAULT_BRAND.btnTextColor};text-decoration:none;`));
    assert.ok(mail.html.includes(`<body style="margin:0;padding:0;background-color:${DEFAULT_BRAND.bgColor};">`));
    assert.ok(mail.html.includes(`background-color:${DEFAULT_BRAND.cardBgColor};border:1px solid ${DEFAULT_BRAND.cardBorderColor};`));
    assert.ok(mail.html.includes(`color:${DEFAULT_BRAND.textColor};`));
    // Three-digit colours and other CSS lengths are accepted as they are.
    const short = render('accessApproved', 'en', {}, { primaryColor: '#f06', btnRadius: '0.5rem' });
    assert.ok(short.html.includes('background-color:#f06;border-radius:0.5rem;'));
  });

  test('a logo URL that is not absolute http(s) is dropped', () => {
    for (const logoUrl of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'data:image/png;base64,AAAA',
      '/branding/1/logo.png',
      'https://cdn.example.com/a b.png',
      'https://cdn.example.com/\nx.png',
    ]) {
      const mail = render('otpCode', 'fr', {}, { logoUrl });
      assert.ok(!mail.html.includes('<img'), logoUrl);
      assert.ok(!/javascript:|data:image/i.test(mail.html), logoUrl);
      assert.ok(mail.html.includes('>Acme</td>'), 'the company name still heads the message');
    }
    const sized = render('otpCode', 'en', {}, { logoSize: 100_000 });
    assert.ok(sized.html.includes('height="512"'));
  });

  test('a main URL that is not http(s) gives no button and no link', () => {
    const mail = render('accessApproved', 'en', { viewerUrl: 'javascript:alert(document.cookie)' });
    assert.ok(!mail.html.includes('javascript:'));
    assert.ok(!mail.html.includes('<a '));
    assert.ok(!mail.text.includes('javascript:'));
  });

  test('the personal message keeps its line breaks as <br> and is escaped', () => {
    const message = 'Hi <b>Bob</b>,\r\n\r\nFigures & notes attached.\nSee "page 3".\r\n';
    const mail = render('documentShared', 'en', { message });
    assert.ok(mail.html.includes('Hi &lt;b&gt;Bob&lt;/b&gt;,<br><br>Figures &amp; notes attached.<br>See &quot;page 3&quot;.</td>'), mail.html);
    assert.ok(!mail.html.includes('<b>Bob'));
    assert.ok(mail.text.includes('A message from Acme:\n\n> Hi <b>Bob</b>,\n>\n> Figures & notes attached.\n> See "page 3".\n'));
    // The button comes after the note.
    assert.ok(mail.text.indexOf('> See') < mail.text.indexOf(viewerUrl));

    const fr = render('documentShared', 'fr', { message: 'Bonjour' });
    assert.ok(fr.text.includes('Acme vous a écrit\u00a0:\n\n> Bonjour'));

    for (const empty of [undefined, null, '', '\n\r\n']) {
      const plain = render('documentShared', 'en', { message: empty });
      assert.ok(!plain.text.includes('A message from'), String(empty));
      assert.ok(!plain.html.includes('border-left:4px'), String(empty));
    }
  });

  test('subjects never carry a line break, whatever the values hold', () => {
    const injected = 'Deck\r\nBcc: victim@example.com\n\u2028X-Evil: 1';
    for (const kind of KINDS) {
      for (const locale of MAIL_LOCALES) {
        const mail = render(kind, locale, {
          documentName: injected,
          senderName: 'Acme\r\nBcc: a@b.c',
          requesterEmail: 'x@y.z\nBcc: a@b.c',
          code: '123\r\n456',
        } as Partial<MailData[typeof kind]>);
        assert.doesNotMatch(mail.subject, /[\r\n\u2028\u2029\u0000-\u001f]/, `${kind}/${locale}: ${JSON.stringify(mail.subject)}`);
        assert.ok(mail.subject.includes('Deck Bcc: victim@example.com X-Evil: 1'));
      }
    }
  });

  test('an address the visitor only typed is said to be unverified, in the language of the mail', () => {
    const unverified: Record<MailLocale, string> = {
      en: 'ana@example.org (not verified)',
      es: 'ana@example.org (dirección no verificada)',
      fr: 'ana@example.org (adresse non vérifiée)',
      it: 'ana@example.org (indirizzo non verificato)',
      pt: 'ana@example.org (endereço não verificado)',
    };
    for (const locale of MAIL_LOCALES) {
      const alert = render('viewAlert', locale, { addressUnverified: true });
      assert.ok(alert.subject.startsWith(unverified[locale]), alert.subject);
      assert.ok(alert.text.includes(unverified[locale]) && alert.html.includes(unverified[locale]), `${locale} body`);
      const request = render('accessRequested', locale, { addressUnverified: true });
      assert.ok(request.subject.startsWith(unverified[locale]), request.subject);
      const digest = render('viewDigest', locale);
      assert.ok(digest.text.includes(unverified[locale]), `${locale} digest`);
      assert.ok(!digest.text.includes(`203.0.113.x (`), 'an IP address is never called unverified');
      assert.ok(!render('viewAlert', locale).text.includes(unverified[locale]), 'a proven address is shown as it is');
    }
  });

  test('a long document name is shortened in the subject only', () => {
    const documentName = `Annual report ${'x'.repeat(300)} end`;
    const mail = render('accessDenied', 'en', { documentName });
    assert.ok(mail.subject.length < 120, mail.subject);
    assert.ok(mail.subject.includes('…'));
    assert.ok(mail.text.includes(documentName));
  });

  test('French typography: no-break spaces inside « » and before a colon', () => {
    const mail = render('otpCode', 'fr');
    assert.ok(mail.subject.includes('«\u00a0Q3 Board Deck\u00a0»'));
    assert.ok(mail.text.includes('«\u00a0Q3 Board Deck\u00a0»\u00a0:'));
    const receipt = render('purchaseReceipt', 'fr');
    assert.ok(receipt.text.includes('Montant payé\u00a0: €12.00'));
    assert.ok(receipt.text.includes(`Télécharger le fichier\u00a0:\n${downloadUrl}`));
  });

  test('singular counts read naturally', () => {
    const en = render('purchaseReceipt', 'en', { downloadsAllowed: 1, validDays: 1 });
    assert.ok(en.text.includes('download the file once within the next 24 hours'));
    const otp = render('otpCode', 'it', { minutes: 1 });
    assert.ok(otp.text.includes('valido per 1 minuto.'));
  });
});

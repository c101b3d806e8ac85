import type { MailStrings } from './types.js';

// French typography wants a no-break space inside « » and before ":", "!" and "?". The plain
// U+00A0 is used rather than the narrow U+202F, which some mail fonts still lack.
const NBSP = '\u00a0';
const q = (name: string) => `«${NBSP}${name}${NBSP}»`;
// In French, 0 and 1 take the singular.
const plural = (n: number, one: string, other: string) => `${n}${NBSP}${n < 2 ? one : other}`;

export const fr: MailStrings = {
  htmlLang: 'fr',
  layout: {
    sentBy: (company) => `Envoyé par ${company} via linkvault`,
    sentVia: 'Envoyé via linkvault',
    linkFallback: `Si le bouton ne fonctionne pas, copiez et collez ce lien dans votre navigateur${NBSP}:`,
    colon: `${NBSP}:`,
  },
  otpCode: {
    subject: (d) => `${d.code} est votre code pour consulter ${q(d.documentName)}`,
    preheader: (d) => `Il est valable ${plural(d.minutes, 'minute', 'minutes')}.`,
    heading: 'Votre code de vérification',
    intro: (d) => `Saisissez ce code pour ouvrir ${q(d.documentName)}${NBSP}:`,
    validity: (d) => `Ce code est valable ${plural(d.minutes, 'minute', 'minutes')}.`,
    ignore: 'Si vous n’êtes pas à l’origine de cette demande, vous pouvez ignorer cet e-mail. Ne communiquez ce code à personne.',
  },
  documentShared: {
    subject: (d) => `${d.senderName} a partagé ${q(d.documentName)} avec vous`,
    preheader: () => 'Ouvrez-le directement dans votre navigateur.',
    heading: 'Un document a été partagé avec vous',
    intro: (d) => `${d.senderName} a partagé le document ${q(d.documentName)} avec vous.`,
    // « Message de » would need elision before a vowel (« d’Acme »); this wording needs none.
    messageFrom: (d) => `${d.senderName} vous a écrit${NBSP}:`,
    button: 'Consulter le document',
  },
  accessRequested: {
    subject: (d) => `${d.requesterEmail} demande l’accès à ${q(d.documentName)}`,
    preheader: () => 'Acceptez ou refusez la demande depuis l’API.',
    heading: 'Nouvelle demande d’accès',
    intro: (d) => `${d.requesterEmail} demande à consulter ${q(d.documentName)}.`,
    labels: { email: 'E-mail', ip: 'Adresse IP', requestId: 'Identifiant de la demande' },
    approveHowTo: `Pour l’accepter, envoyez cette requête à l’API${NBSP}:`,
    denyHowTo: (body) => `Pour la refuser, envoyez la même requête avec ${body}.`,
    outcome: 'Le visiteur sera informé de votre décision par e-mail.',
  },
  accessApproved: {
    subject: (d) => `Vous pouvez maintenant consulter ${q(d.documentName)}`,
    preheader: () => 'Votre demande d’accès a été acceptée.',
    heading: 'Accès accordé',
    intro: (d) => `Bonne nouvelle${NBSP}: votre demande d’accès à ${q(d.documentName)} a été acceptée.`,
    button: 'Consulter le document',
  },
  accessDenied: {
    subject: (d) => `Votre demande d’accès à ${q(d.documentName)} a été refusée`,
    preheader: () => 'La personne qui a partagé ce document n’a pas donné suite à votre demande.',
    heading: 'Demande refusée',
    intro: (d) => `La personne qui a partagé ${q(d.documentName)} a refusé votre demande d’accès.`,
    followUp: 'Si vous pensez qu’il s’agit d’une erreur, contactez la personne qui vous a envoyé le lien.',
  },
  purchaseReceipt: {
    subject: (d) => `Votre reçu pour ${q(d.documentName)}`,
    preheader: () => 'Votre lien de téléchargement est prêt.',
    heading: `Merci pour votre achat${NBSP}!`,
    intro: (d) => `Nous avons bien reçu votre paiement de ${d.amountFormatted} pour ${q(d.documentName)}.`,
    labels: { document: 'Document', amount: 'Montant payé' },
    button: 'Télécharger le fichier',
    limits: (d) =>
      `Ce lien vous permet de télécharger le fichier ${d.downloadsAllowed === 1 ? 'une seule fois' : `jusqu’à ${d.downloadsAllowed} fois`} ` +
      `${d.validDays === 1 ? `dans les prochaines 24${NBSP}heures` : `dans les ${d.validDays} prochains jours`}.`,
    keepSafe: `Conservez cet e-mail et ne le transférez pas${NBSP}: toute personne disposant du lien peut télécharger le fichier.`,
  },
};

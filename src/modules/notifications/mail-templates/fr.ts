import type { MailStrings } from './types.js';

// French typography wants a no-break space inside « » and before ":", "!" and "?". The plain
// U+00A0 is used rather than the narrow U+202F, which some mail fonts still lack.
const NBSP = '\u00a0';
const q = (name: string) => `«${NBSP}${name}${NBSP}»`;
// In French, 0 and 1 take the singular.
const plural = (n: number, one: string, other: string) => `${n}${NBSP}${n < 2 ? one : other}`;

// « que » elides before a vowel: « en tant qu’administrateur ».
const AS_ROLE = { owner: 'en tant que propriétaire', admin: 'en tant qu’administrateur', member: 'en tant que membre' } as const;

export const fr: MailStrings = {
  htmlLang: 'fr',
  layout: {
    sentBy: (company) => `Envoyé par ${company} via linkvault`,
    sentVia: 'Envoyé via linkvault',
    linkFallback: `Si le bouton ne fonctionne pas, copiez et collez ce lien dans votre navigateur${NBSP}:`,
    colon: `${NBSP}:`,
    unverified: (address) => `${address} (adresse non vérifiée)`,
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
    preheader: () => 'Acceptez-la ou refusez-la depuis le tableau de bord.',
    heading: 'Nouvelle demande d’accès',
    intro: (d) => `${d.requesterEmail} demande à consulter ${q(d.documentName)}.`,
    labels: { email: 'E-mail', ip: 'Adresse IP', requestId: 'Identifiant de la demande' },
    button: 'Examiner la demande',
    approveHowTo: `Ou acceptez-la depuis l’API avec cette requête${NBSP}:`,
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
  saleMade: {
    subject: (d) => `${q(d.documentName)} a été acheté pour ${d.amountFormatted}`,
    preheader: (d) => `Acheté par ${d.buyerEmail}.`,
    heading: 'Vous avez fait une vente',
    intro: (d) => `${d.buyerEmail} a acheté ${q(d.documentName)} pour ${d.amountFormatted}.`,
    labels: { buyer: 'Acheteur', document: 'Document', amount: 'Montant' },
    button: 'Ouvrir ses statistiques',
    footer: 'L’acheteur a reçu un reçu avec son lien de téléchargement. Le paiement va sur votre compte Stripe connecté.',
  },
  invitation: {
    subject: (d) => `${d.inviterName} vous invite à rejoindre ${d.accountName} sur linkvault`,
    preheader: (d) => `Rejoignez l’équipe ${AS_ROLE[d.role]}.`,
    heading: 'Une invitation pour vous',
    intro: (d) => `${d.inviterName} vous invite à rejoindre ${q(d.accountName)} sur linkvault ${AS_ROLE[d.role]}.`,
    button: 'Accepter l’invitation',
    validity: (d) => `L’invitation est valable ${plural(d.days, 'jour', 'jours')}.`,
    ignore: 'Si vous ne vous attendiez pas à cette invitation, vous pouvez ignorer cet e-mail.',
  },
  viewAlert: {
    subject: (d) => `${d.visitor} a ouvert ${q(d.documentName)}`,
    preheader: (d) => `${d.viewedAt}`,
    heading: 'Votre document a été ouvert',
    intro: (d) => `${d.visitor} vient d’ouvrir ${q(d.documentName)}.`,
    labels: { visitor: 'Visiteur', document: 'Document', time: 'Heure' },
    button: 'Ouvrir ses statistiques',
    footer:
      'Vous recevez un tel e-mail par visiteur et par document toutes les heures au plus. Pour les arrêter pour ce document, désactivez l’alerte dans ses réglages sur le tableau de bord, ou pour tous les vôtres dans votre profil ; pour un résumé par jour à la place, changez les alertes de consultation dans les réglages de partage du compte.',
  },
  viewDigest: {
    subject: (d) => `${plural(d.views.length + d.more, 'consultation', 'consultations')} de vos documents le ${d.day}`,
    preheader: (d) => `Qui a ouvert quoi le ${d.day}.`,
    heading: 'Vos consultations du jour',
    intro: (d) => `Le ${d.day} (UTC), vos documents ont été ouverts ${plural(d.views.length + d.more, 'fois', 'fois')}${NBSP}:`,
    line: (v) => `${v.visitor} a ouvert ${q(v.documentName)}`,
    more: (n) => `…et ${plural(n, 'autre consultation', 'autres consultations')}.`,
    button: 'Ouvrir les statistiques',
    footer:
      'Ce résumé remplace un e-mail par consultation. Revenez à un e-mail par consultation dans les alertes de consultation des réglages de partage du compte, sur le tableau de bord.',
  },
  magicLink: {
    subject: 'Votre lien de connexion à linkvault',
    preheader: (d) => `Il ne sert qu’une fois, pendant ${plural(d.minutes, 'minute', 'minutes')}.`,
    heading: 'Connexion à linkvault',
    intro: 'Utilisez le bouton ci-dessous pour vous connecter.',
    button: 'Se connecter',
    validity: (d) => `Le lien ne sert qu’une fois et reste valable ${plural(d.minutes, 'minute', 'minutes')}.`,
    ignore: `Si vous ne l’avez pas demandé, ignorez cet e-mail${NBSP}: personne ne peut se connecter sans ce lien.`,
  },
  passwordReset: {
    subject: 'Réinitialisez votre mot de passe linkvault',
    preheader: (d) => `Le lien est valable ${plural(d.minutes, 'minute', 'minutes')}.`,
    heading: 'Réinitialiser votre mot de passe',
    intro: 'Nous avons reçu une demande de réinitialisation de votre mot de passe linkvault.',
    button: 'Choisir un nouveau mot de passe',
    validity: (d) => `Le lien ne sert qu’une fois et reste valable ${plural(d.minutes, 'minute', 'minutes')}.`,
    ignore: `Si vous n’avez rien demandé, ignorez cet e-mail${NBSP}: votre mot de passe reste inchangé.`,
  },
  signUp: {
    subject: 'Confirmez votre e-mail pour linkvault',
    preheader: (d) => `Le lien est valable ${plural(d.hours, 'heure', 'heures')}.`,
    heading: 'Confirmez votre e-mail',
    intro: 'Confirmez votre adresse e-mail pour créer votre compte linkvault.',
    button: 'Confirmer et continuer',
    validity: (d) => `Le lien ne sert qu’une fois et reste valable ${plural(d.hours, 'heure', 'heures')}.`,
    ignore: 'Si vous n’avez pas demandé à créer de compte, vous pouvez ignorer cet e-mail.',
  },
  emailChange: {
    subject: 'Confirmez votre nouvelle adresse de connexion linkvault',
    preheader: (d) => `Le lien est valable ${plural(d.minutes, 'minute', 'minutes')}.`,
    heading: 'Confirmer votre nouvelle adresse',
    intro: 'Vous avez demandé à vous connecter à linkvault avec cette adresse désormais.',
    button: 'Utiliser cette adresse',
    validity: (d) =>
      `Le lien ne sert qu’une fois et reste valable ${plural(d.minutes, 'minute', 'minutes')}. Tant que vous ne l’avez pas ouvert, vous vous connectez avec votre adresse actuelle.`,
    ignore: `Si vous n’avez rien demandé, ignorez cet e-mail${NBSP}: rien ne change sans le lien.`,
  },
  signInDeleted: {
    subject: 'Votre connexion linkvault a été supprimée',
    preheader: 'Vous n’êtes plus membre d’aucun compte linkvault.',
    heading: 'Votre connexion a été supprimée',
    intro: `La connexion linkvault de cette adresse a été supprimée${NBSP}: elle n’appartient plus à aucun compte, et les liens envoyés auparavant à cette adresse ne fonctionnent plus.`,
    notYou: `Si vous n’êtes pas à l’origine de cette suppression, prévenez sans attendre un propriétaire de vos comptes${NBSP}: il peut vous inviter à nouveau.`,
  },
  accountDeleted: {
    subject: (d) => `Le compte linkvault ${d.accountName} a été supprimé`,
    preheader: (d) => `${d.by} l’a supprimé, avec tout son contenu.`,
    heading: 'Un compte dont vous êtes membre a été supprimé',
    intro: (d) =>
      `${d.by} a supprimé le compte ${d.accountName}${NBSP}: ses documents, liens, salles et statistiques n’existent plus, et vous ne pouvez plus l’ouvrir.`,
    operator: 'L’administrateur du serveur',
    signInDeleted: `C’était le seul compte dont vous étiez membre${NBSP}: votre connexion linkvault a donc été supprimée aussi.`,
  },
  emailChanged: {
    subject: 'Votre adresse de connexion linkvault a changé',
    preheader: (d) => `Vous vous connectez désormais avec ${d.newEmail}.`,
    heading: 'Votre adresse de connexion a changé',
    intro: (d) =>
      `Votre connexion linkvault est passée de cette adresse à ${d.newEmail}. Les liens de connexion et de réinitialisation envoyés ici auparavant ne fonctionnent plus.`,
    notYou:
      'Si vous n’êtes pas à l’origine de ce changement, demandez sans attendre à un propriétaire de votre compte de retirer cette adresse de ses membres.',
  },
};

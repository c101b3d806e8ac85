import type { MailStrings } from './types.js';

// Italian addressing the reader as "tu", as most Italian product e-mails now do; quotes «…».
const q = (name: string) => `«${name}»`;
const plural = (n: number, one: string, other: string) => `${n} ${n === 1 ? one : other}`;

export const it: MailStrings = {
  htmlLang: 'it',
  layout: {
    sentBy: (company) => `Inviato da ${company} tramite linkvault`,
    sentVia: 'Inviato tramite linkvault',
    linkFallback: 'Se il pulsante non funziona, copia e incolla questo link nel browser:',
    colon: ':',
  },
  otpCode: {
    subject: (d) => `${d.code} è il tuo codice per visualizzare ${q(d.documentName)}`,
    preheader: (d) => `È valido per ${plural(d.minutes, 'minuto', 'minuti')}.`,
    heading: 'Il tuo codice di verifica',
    intro: (d) => `Inserisci questo codice per aprire ${q(d.documentName)}:`,
    validity: (d) => `Il codice è valido per ${plural(d.minutes, 'minuto', 'minuti')}.`,
    ignore: 'Se non l’hai richiesto tu, puoi ignorare questa email. Non condividere il codice con nessuno.',
  },
  documentShared: {
    subject: (d) => `${d.senderName} ha condiviso ${q(d.documentName)} con te`,
    preheader: () => 'Aprilo direttamente nel browser.',
    heading: 'Hai ricevuto un documento',
    intro: (d) => `${d.senderName} ha condiviso con te il documento ${q(d.documentName)}.`,
    messageFrom: (d) => `Messaggio di ${d.senderName}:`,
    button: 'Apri il documento',
  },
  accessRequested: {
    subject: (d) => `${d.requesterEmail} chiede di accedere a ${q(d.documentName)}`,
    preheader: () => 'Approva o rifiuta la richiesta tramite l’API.',
    heading: 'Nuova richiesta di accesso',
    intro: (d) => `${d.requesterEmail} ha chiesto di accedere a ${q(d.documentName)}.`,
    labels: { email: 'Email', ip: 'Indirizzo IP', requestId: 'ID richiesta' },
    approveHowTo: 'Per approvarla, invia questa chiamata all’API:',
    denyHowTo: (body) => `Per rifiutarla, invia la stessa chiamata con ${body}.`,
    outcome: 'Il visitatore riceverà un’email con la tua decisione.',
  },
  accessApproved: {
    subject: (d) => `Ora puoi visualizzare ${q(d.documentName)}`,
    preheader: () => 'La tua richiesta di accesso è stata approvata.',
    heading: 'Accesso consentito',
    intro: (d) => `Buone notizie: la tua richiesta di accesso a ${q(d.documentName)} è stata approvata.`,
    button: 'Apri il documento',
  },
  accessDenied: {
    subject: (d) => `La tua richiesta di accesso a ${q(d.documentName)} è stata rifiutata`,
    preheader: () => 'Chi ha condiviso il documento non ha approvato la tua richiesta.',
    heading: 'Richiesta rifiutata',
    intro: (d) => `Chi ha condiviso ${q(d.documentName)} ha rifiutato la tua richiesta di accesso.`,
    followUp: 'Se pensi che si tratti di un errore, contatta la persona che ti ha inviato il link.',
  },
  purchaseReceipt: {
    subject: (d) => `Ricevuta del tuo acquisto: ${q(d.documentName)}`,
    preheader: () => 'Il tuo link per il download è pronto.',
    heading: 'Grazie per il tuo acquisto!',
    intro: (d) => `Abbiamo ricevuto il tuo pagamento di ${d.amountFormatted} per ${q(d.documentName)}.`,
    labels: { document: 'Documento', amount: 'Importo pagato' },
    button: 'Scarica il file',
    limits: (d) =>
      `Con questo link puoi scaricare il file ${d.downloadsAllowed === 1 ? 'una sola volta' : `fino a ${d.downloadsAllowed} volte`} ` +
      `${d.validDays === 1 ? 'nelle prossime 24 ore' : `nei prossimi ${d.validDays} giorni`}.`,
    keepSafe: 'Conserva questa email e non inoltrarla: chiunque abbia il link può scaricare il file.',
  },
};

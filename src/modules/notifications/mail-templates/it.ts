import type { MailStrings } from './types.js';

// Italian addressing the reader as "tu", as most Italian product e-mails now do; quotes «…».
const q = (name: string) => `«${name}»`;
const plural = (n: number, one: string, other: string) => `${n} ${n === 1 ? one : other}`;

const IT_ROLES = { owner: 'proprietario', admin: 'amministratore', member: 'membro' } as const;

export const it: MailStrings = {
  htmlLang: 'it',
  layout: {
    sentBy: (company) => `Inviato da ${company} tramite linkvault`,
    sentVia: 'Inviato tramite linkvault',
    linkFallback: 'Se il pulsante non funziona, copia e incolla questo link nel browser:',
    colon: ':',
    unverified: (address) => `${address} (indirizzo non verificato)`,
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
    preheader: () => 'Approvala o rifiutala dalla dashboard.',
    heading: 'Nuova richiesta di accesso',
    intro: (d) => `${d.requesterEmail} ha chiesto di accedere a ${q(d.documentName)}.`,
    labels: { email: 'Email', ip: 'Indirizzo IP', requestId: 'ID richiesta' },
    button: 'Esamina la richiesta',
    approveHowTo: 'Oppure approvala tramite l’API con questa chiamata:',
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
  saleMade: {
    subject: (d) => `${q(d.documentName)} è stato acquistato per ${d.amountFormatted}`,
    preheader: (d) => `Acquistato da ${d.buyerEmail}.`,
    heading: 'Hai fatto una vendita',
    intro: (d) => `${d.buyerEmail} ha acquistato ${q(d.documentName)} per ${d.amountFormatted}.`,
    labels: { buyer: 'Acquirente', document: 'Documento', amount: 'Importo' },
    button: 'Apri le statistiche',
    footer: 'L’acquirente ha ricevuto una ricevuta con il link per il download. Il pagamento va sul tuo account Stripe collegato.',
  },
  invitation: {
    subject: (d) => `${d.inviterName} ti invita a unirti a ${d.accountName} su linkvault`,
    preheader: (d) => `Entra come ${IT_ROLES[d.role]}.`,
    heading: 'Hai ricevuto un invito',
    intro: (d) => `${d.inviterName} ti invita a unirti a ${q(d.accountName)} su linkvault come ${IT_ROLES[d.role]}.`,
    button: 'Accetta l’invito',
    validity: (d) => `L’invito è valido per ${plural(d.days, 'giorno', 'giorni')}.`,
    ignore: 'Se non ti aspettavi questo invito, puoi ignorare questa email.',
  },
  viewAlert: {
    subject: (d) => `${d.visitor} ha aperto ${q(d.documentName)}`,
    preheader: (d) => `${d.viewedAt}`,
    heading: 'Il tuo documento è stato aperto',
    intro: (d) => `${d.visitor} ha appena aperto ${q(d.documentName)}.`,
    labels: { visitor: 'Visitatore', document: 'Documento', time: 'Ora' },
    button: 'Apri le statistiche',
    footer:
      'Ricevi un’e-mail così per visitatore e documento al massimo ogni ora. Per non riceverle più per questo documento, disattiva l’avviso nelle sue impostazioni sulla dashboard, o per tutti i tuoi nel tuo profilo; per un riepilogo al giorno, cambia gli avvisi di visualizzazione nelle impostazioni di condivisione dell’account.',
  },
  viewDigest: {
    subject: (d) => `${plural(d.views.length + d.more, 'visualizzazione', 'visualizzazioni')} dei tuoi documenti il ${d.day}`,
    preheader: (d) => `Chi ha aperto cosa il ${d.day}.`,
    heading: 'Le tue visualizzazioni del giorno',
    intro: (d) => `Il ${d.day} (UTC) i tuoi documenti sono stati aperti ${plural(d.views.length + d.more, 'volta', 'volte')}:`,
    line: (v) => `${v.visitor} ha aperto ${q(v.documentName)}`,
    more: (n) => `…e ${plural(n, 'altra visualizzazione', 'altre visualizzazioni')}.`,
    button: 'Apri le statistiche',
    footer:
      'Questo riepilogo sostituisce un’e-mail per visualizzazione. Torna a un’e-mail per visualizzazione negli avvisi di visualizzazione delle impostazioni di condivisione dell’account, sulla dashboard.',
  },
  magicLink: {
    subject: 'Il tuo link di accesso a linkvault',
    preheader: (d) => `Funziona una sola volta, per ${plural(d.minutes, 'minuto', 'minuti')}.`,
    heading: 'Accedi a linkvault',
    intro: 'Usa il pulsante qui sotto per accedere.',
    button: 'Accedi',
    validity: (d) => `Il link funziona una sola volta ed è valido per ${plural(d.minutes, 'minuto', 'minuti')}.`,
    ignore: 'Se non l’hai richiesto, ignora questa email: nessuno può accedere senza il link.',
  },
  passwordReset: {
    subject: 'Reimposta la password di linkvault',
    preheader: (d) => `Il link è valido per ${plural(d.minutes, 'minuto', 'minuti')}.`,
    heading: 'Reimposta la password',
    intro: 'Abbiamo ricevuto una richiesta di reimpostazione della tua password di linkvault.',
    button: 'Scegli una nuova password',
    validity: (d) => `Il link funziona una sola volta ed è valido per ${plural(d.minutes, 'minuto', 'minuti')}.`,
    ignore: 'Se non hai chiesto di reimpostarla, ignora questa email: la tua password resta invariata.',
  },
  signUp: {
    subject: 'Conferma la tua email per linkvault',
    preheader: (d) => `Il link è valido per ${plural(d.hours, 'ora', 'ore')}.`,
    heading: 'Conferma la tua email',
    intro: 'Conferma il tuo indirizzo email per creare il tuo account linkvault.',
    button: 'Conferma e continua',
    validity: (d) => `Il link funziona una sola volta ed è valido per ${plural(d.hours, 'ora', 'ore')}.`,
    ignore: 'Se non hai chiesto di creare un account, puoi ignorare questa email.',
  },
  emailChange: {
    subject: 'Conferma il nuovo indirizzo di accesso a linkvault',
    preheader: (d) => `Il link è valido per ${plural(d.minutes, 'minuto', 'minuti')}.`,
    heading: 'Conferma il nuovo indirizzo',
    intro: 'Hai chiesto di accedere a linkvault con questo indirizzo d’ora in poi.',
    button: 'Usa questo indirizzo',
    validity: (d) =>
      `Il link funziona una sola volta ed è valido per ${plural(d.minutes, 'minuto', 'minuti')}. Finché non lo apri, accedi con il tuo indirizzo attuale.`,
    ignore: 'Se non l’hai chiesto tu, ignora questa email: senza il link non cambia nulla.',
  },
  signInDeleted: {
    subject: 'Il tuo accesso a linkvault è stato eliminato',
    preheader: 'Non fai più parte di alcun account linkvault.',
    heading: 'Il tuo accesso è stato eliminato',
    intro:
      'L’accesso a linkvault di questo indirizzo è stato eliminato: non appartiene più ad alcun account e i link inviati prima a questo indirizzo non funzionano più.',
    notYou: 'Se non sei stato tu, avvisa subito un proprietario dei tuoi account: può invitarti di nuovo.',
  },
  accountDeleted: {
    subject: (d) => `L’account linkvault ${d.accountName} è stato eliminato`,
    preheader: (d) => `${d.by} l’ha eliminato, con tutto il suo contenuto.`,
    heading: 'Un account di cui fai parte è stato eliminato',
    intro: (d) => `${d.by} ha eliminato l’account ${d.accountName}: documenti, link, stanze e statistiche non esistono più e non puoi più aprirlo.`,
    operator: 'L’amministratore del server',
    signInDeleted: 'Era l’unico account di cui facevi parte, quindi anche il tuo accesso a linkvault è stato eliminato.',
  },
  emailChanged: {
    subject: 'Il tuo indirizzo di accesso a linkvault è cambiato',
    preheader: (d) => `Ora accedi come ${d.newEmail}.`,
    heading: 'Il tuo indirizzo di accesso è cambiato',
    intro: (d) =>
      `Il tuo accesso a linkvault è passato da questo indirizzo a ${d.newEmail}. I link di accesso e di reimpostazione inviati qui prima non funzionano più.`,
    notYou: 'Se non hai fatto tu questa modifica, chiedi subito a un proprietario del tuo account di togliere quell’indirizzo dai membri.',
  },
};

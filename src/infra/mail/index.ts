export { createMailer, defaultBackoffMs, MAIL_JOB, type MailJob, type MailLog, type Mailer, type MailerDeps, type OutgoingMail } from './mailer.js';
export { createTransportCache, SMTP_TIMEOUTS, transportSettingsFromUrl, type MailTransportSettings, type TransportCache } from './transport.js';
export { listMail, type NewOutboxMail, type OutboxFilter } from './outbox.repo.js';
export { pinToPublicAddress, RefusedSmtpHostError, smtpHostRefusal, type HostLookup } from './smtp-destination.js';

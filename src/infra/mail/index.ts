export {
  createMailer,
  defaultBackoffMs,
  type MailLog,
  type Mailer,
  type MailerDeps,
  type OutgoingMail,
} from './mailer.js';
export {
  createTransportCache,
  SMTP_TIMEOUTS,
  transportSettingsFromUrl,
  type MailTransportSettings,
  type TransportCache,
} from './transport.js';
export { listMail, type MailClaim, type NewOutboxMail, type OutboxFilter } from './outbox.repo.js';

import type { Generated, Insertable, Selectable } from 'kysely';

/**
 * Row types, one per table. Portable conventions (same on SQLite and PostgreSQL):
 * times are epoch milliseconds in bigint columns, flags are 0/1 integers.
 */
export interface AccountsTable {
  id: Generated<number>;
  email: string;
  name: string | null;
  plan: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  key_hash: string;
  key_prefix: string;
  active: number;
  revoked_at: number | null;
  total_requests: Generated<number>;
  last_used_at: number | null;
  created_at: number;
  /** the person who made it, whose current role in the account it acts with; null: made at the command line (or before 0028), acts as owner */
  created_by: number | null;
}

export interface LinksTable {
  id: string;
  account_id: number;
  kind: 'file' | 'room';
  name: string;
  mime: string;
  version: Generated<number>;
  blob_key: string | null;
  wrapped_key: string | null;
  size: Generated<number>;
  sha256: string | null;
  is_active: Generated<number>;
  password_hash: string | null;
  has_watermark: Generated<number>;
  requires_approval: Generated<number>;
  requires_otp: Generated<number>;
  /** JSON array of lower-case addresses */
  allowed_emails: Generated<string>;
  /** JSON array of lower-case domains */
  allowed_domains: Generated<string>;
  booking_url: string | null;
  preview_pages: number | null;
  view_session_ttl: Generated<number>;
  max_views: Generated<number>;
  views: Generated<number>;
  require_payment: Generated<number>;
  download_price: number | null;
  download_currency: string | null;
  created_at: number;
  expires_at: number;
  blob_purged_at: number | null;
  /** when the link.expired event was recorded (0008) */
  expiry_noticed_at: number | null;
  /** 1 once a list has filed the expired link under the expired tab (0016, ADR 0015) */
  in_expired_tab: Generated<number>;
  /** 1: each visitor gives an e-mail address, not verified (0017) */
  require_email: Generated<number>;
  /** JSON arrays of lower-case addresses and domains refused (0017) */
  blocked_emails: Generated<string>;
  blocked_domains: Generated<string>;
  /** visitors refused by a block list (0017) */
  blocked_attempts: Generated<number>;
  /** 1: the viewer offers a download, stamped when the link watermarks (0019) */
  allow_download: Generated<number>;
  /** 1: each visitor who opens it is told to the link's maker (0020) */
  notify_on_view: Generated<number>;
  /** the person who made the link; null when an API key or the CLI did (0020) */
  created_by: number | null;
  /** what link previews (Open Graph) show instead of the name; the image is a PNG blob under the link's prefix (0021) */
  preview_title: string | null;
  preview_description: string | null;
  preview_image_key: string | null;
  /** the agreement a visitor accepts before viewing (0022) */
  agreement_id: number | null;
  /** when a visitor last opened it, epoch ms; 0 when never (0024) */
  last_viewed_at: Generated<number>;
}

export interface RoomLinksTable {
  room_id: string;
  link_id: string;
  position: number;
}

export interface DownloadTokensTable {
  id: Generated<number>;
  link_id: string;
  token_hash: string;
  uses_left: number;
  expires_at: number;
  created_at: number;
  /** 1 when a buyer paid for it: it keeps working while the file exists */
  purchased: Generated<number>;
  /** a receipt's token: the purchase (by its checkout session's hash) whose downloads it spends, not uses of its own (0040) */
  checkout_session_hash: string | null;
}

export interface VisitsTable {
  id: Generated<number>;
  token_hash: string;
  link_id: string;
  email: string | null;
  otp_email: string | null;
  otp_passed: Generated<number>;
  access_request_id: number | null;
  ip: string;
  user_agent: string | null;
  view_id: string | null;
  created_at: number;
  expires_at: number;
  session_started_at: number | null;
  /** 1 once the visitor accepted the link's agreement (0022) */
  agreement_accepted: Generated<number>;
  /** the data room the visit was begun in, the only place it is found (0029); null: the link on its own */
  room_id: string | null;
  /** the seconds of reading its viewer reported, summed (0030): at most what the visit has lasted allows */
  reported_seconds: Generated<number>;
  /** the stamp of the link password this visit passed (0036); null: none passed */
  password_stamp: string | null;
  /** SHA-256 of the cookie of the client portal session that began it: that session's next opening takes it up again (0041) */
  portal_session_hash: string | null;
}

export interface OtpCodesTable {
  id: Generated<number>;
  scope: string;
  email: string;
  code_hash: string;
  attempts: Generated<number>;
  consumed_at: number | null;
  created_at: number;
  expires_at: number;
}

export type AccessRequestStatus = 'pending' | 'approved' | 'denied';

export interface AccessRequestsTable {
  id: Generated<number>;
  link_id: string;
  email: string;
  visitor_ip: string;
  status: AccessRequestStatus;
  created_at: number;
  decided_at: number | null;
  /** 1 when a one-time code proved `email`, 0 when it was only typed; NULL for requests older than 0034 */
  email_verified: number | null;
}

export interface PageViewsTable {
  id: Generated<number>;
  visit_id: number;
  page: number;
  seconds: number;
  created_at: number;
}

export type MailStatus = 'pending' | 'sent' | 'logged' | 'failed';

export interface MailOutboxTable {
  id: Generated<number>;
  account_id: number | null;
  to_address: string;
  /** the template (`otpCode`, `magicLink`…), or null for a message written without one */
  kind: string | null;
  /** the subject as kept: a one-time code in it is masked */
  subject: string;
  /** the subject as sent, sealed, when `subject` masks a code in it; cleared with the body (0031) */
  secret_subject: string | null;
  /**
   * the message, sealed with the master key (`infra/mail/sealed-message.ts`; in clear in a row an
   * earlier version queued), kept until it is sent or has failed for good, then '' (0031)
   */
  text_body: string;
  html_body: string | null;
  status: MailStatus;
  attempts: Generated<number>;
  /** when the job runner will try again (0012: the runner holds the lease and the backoff) */
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}

export interface BrandingTable {
  account_id: number;
  company_name: string | null;
  logo_key: string | null;
  primary_color: string | null;
  bg_color: string | null;
  btn_text_color: string | null;
  btn_radius: string | null;
  card_bg_color: string | null;
  card_border_color: string | null;
  text_color: string | null;
  logo_size: number | null;
  /** The verified custom domain: the only one that routes visitors and dresses links (unique). */
  custom_domain: string | null;
  /** A claimed domain waiting for its DNS TXT record; several accounts may claim one name. */
  custom_domain_pending: string | null;
  /** The value the TXT record `_linkvault.<custom_domain_pending>` must hold. */
  custom_domain_token: string | null;
  smtp_host: string | null;
  smtp_port: number | null;
  smtp_encryption: 'none' | 'ssl' | 'starttls' | null;
  smtp_username: string | null;
  smtp_password_sealed: string | null;
  from_email: string | null;
  from_name: string | null;
  email_locale: 'en' | 'es' | 'fr' | 'pt' | 'it' | null;
  updated_at: number;
}

export interface IntegrationsTable {
  id: Generated<number>;
  account_id: number;
  type: 'slack' | 'teams';
  channel: string;
  webhook_url_sealed: string;
  enabled: Generated<number>;
  created_at: number;
}

export interface EventsTable {
  id: Generated<number>;
  account_id: number;
  type: string;
  link_id: string | null;
  /** JSON object */
  payload: string;
  created_at: number;
}

export interface EventDeliveriesTable {
  id: Generated<number>;
  event_id: number;
  integration_id: number;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  /** when the job runner will try again (0012: the runner holds the lease and the backoff) */
  next_attempt_at: number;
  last_error: string | null;
  delivered_at: number | null;
}

export interface PortalsTable {
  id: string;
  account_id: number;
  name: string;
  slug: string;
  /** JSON array of lower-case addresses */
  allowed_emails: Generated<string>;
  created_at: number;
}

export interface PortalLinksTable {
  portal_id: string;
  link_id: string;
  created_at: number;
}

export interface PortalSessionsTable {
  id: Generated<number>;
  token_hash: string;
  portal_id: string;
  email: string | null;
  otp_email: string | null;
  verified_at: number | null;
  created_at: number;
  expires_at: number;
}

export interface LinkTemplatesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** JSON of Partial<LinkSettings> */
  settings: string;
  created_at: number;
  updated_at: number;
}

export interface StripeAccountsTable {
  account_id: number;
  stripe_account_id: string;
  charges_enabled: Generated<number>;
  checked_at: number;
  created_at: number;
}

export interface PurchasesTable {
  id: Generated<number>;
  link_id: string;
  /** SHA-256 of the Stripe checkout session id, which downloads the purchase (`?session_id=`) (0032) */
  checkout_session_hash: string;
  email: string;
  amount: number;
  currency: string;
  link_version: number;
  downloads_left: number;
  expires_at: number;
  created_at: number;
  /** when Stripe's webhook sent its receipt, token and event; null until then (0038) */
  fulfilled_at: number | null;
  /** the Stripe PaymentIntent that paid it, whose refund or dispute ends its downloads (0040) */
  payment_intent: string | null;
}

export interface StripeEventsTable {
  event_id: string;
  type: string;
  processed_at: number;
}

/** One row per distinct visitor (e-mail, else IP) of an account's links (0008). */
export interface AccountVisitorsTable {
  account_id: number;
  visitor_key: string;
  first_seen_at: number;
}

/** Views of an account's links per UTC day number (epoch ms / 86 400 000) (0008). */
export interface AccountDailyViewsTable {
  account_id: number;
  day: number;
  views: number;
}

/** A link's view sessions and distinct visitors (0027). */
export interface LinkViewTotalsTable {
  link_id: string;
  sessions: number;
  visitors: number;
}

/** A link's views per UTC day number (0027). */
export interface LinkDailyViewsTable {
  link_id: string;
  day: number;
  views: number;
}

/** Seconds a link's visitors spent on each page (0027). */
export interface LinkPageTotalsTable {
  link_id: string;
  page: number;
  seconds: number;
}

/** One visitor of a link (e-mail, else IP) over all their views; who they were is their latest view's (0027). */
export interface LinkVisitorsTable {
  link_id: string;
  visitor_key: string;
  email: string | null;
  ip: string;
  user_agent: string | null;
  views: number;
  seconds: number;
  pages_seen: number;
  first_view_at: number;
  last_view_at: number;
  /** views whose address was only typed, not proved with a code; NULL for rows older than 0034, whose earlier views are not known */
  unverified_views: number | null;
}

/** The pages each visitor of a link has seen, so each is counted once (0027). */
export interface LinkVisitorPagesTable {
  link_id: string;
  visitor_key: string;
  page: number;
}

/** The account's own block list, applied to every link (0017). */
export interface BlockListsTable {
  account_id: number;
  /** JSON arrays of lower-case addresses and domains */
  emails: Generated<string>;
  domains: Generated<string>;
  updated_at: number;
}

/** An account's signed webhook endpoint (0018); URL and secret sealed with the master key. */
export interface WebhooksTable {
  id: Generated<number>;
  account_id: number;
  url_sealed: string;
  url_origin: string;
  /** JSON array of the webhook event types it receives */
  events: string;
  active: Generated<number>;
  secret_sealed: string;
  created_at: number;
  updated_at: number;
}

/** One message to one webhook (0018): its exact body, and how sending it went. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  message_id: string;
  event_type: string;
  body: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: number | null;
  response_status: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

/** An account's choice of view alerts (0020): `each` at once, or a `daily` digest. */
export interface ViewAlertSettingsTable {
  account_id: number;
  mode: string;
  updated_at: number;
}

/** A visitor's view told (or to be told, in a digest) to the link's maker (0020). */
export interface ViewAlertsTable {
  id: Generated<number>;
  account_id: number;
  link_id: string;
  /** the visitor's e-mail, else the masked IP */
  visitor: string;
  /** 1 when `visitor` is an address the visitor typed and nothing proved (0033) */
  address_unverified: Generated<number>;
  recipient: string;
  document_name: string;
  viewed_at: number;
  in_digest: Generated<number>;
}

/** One version of a paged file and how far its rendering is (0023). */
export interface DocumentsTable {
  id: Generated<number>;
  account_id: number;
  link_id: string;
  version: number;
  /** `processing`, `ready` or `failed` */
  status: string;
  page_count: number | null;
  error: string | null;
  pdf_blob_key: string | null;
  pdf_wrapped_key: string | null;
  pdf_size: number | null;
  created_at: number;
  updated_at: number;
}

/** A rendered page: its image, thumbnail and stamp base (sealed blobs) and its text (0023). */
export interface DocumentPagesTable {
  document_id: number;
  page: number;
  width: number;
  height: number;
  image_key: string;
  image_wrapped_key: string;
  image_size: number;
  thumbnail_key: string;
  thumbnail_wrapped_key: string;
  thumbnail_size: number;
  text: string;
  /** the JPEG stamped copies are made from (0026); null for pages rendered before */
  stamp_base_key: string | null;
  stamp_base_wrapped_key: string | null;
  stamp_base_size: number | null;
}

/** An agreement (NDA) of an account (0022): Markdown text, or a PDF held by one of its links. */
export interface AgreementsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  body: string | null;
  pdf_link_id: string | null;
  created_at: number;
  updated_at: number;
}

/** A visitor's acceptance of an agreement on a link (0022), with a hash of the exact text. */
export interface AgreementAcceptancesTable {
  id: Generated<number>;
  agreement_id: number;
  link_id: string;
  name: string;
  email: string;
  ip: string;
  user_agent: string | null;
  text_sha256: string;
  accepted_at: number;
}

/** How many links an account holds (0013), and how many are filed under the expired tab (0016). */
export interface LinkCountsTable {
  account_id: number;
  links: number;
  expired: Generated<number>;
}

/** Distinct visitors and downloads of an account, counted as they happen (0013). */
export interface AccountAnalyticsTotalsTable {
  account_id: number;
  visitors: Generated<number>;
  downloads: Generated<number>;
}

export type JobStatus = 'pending' | 'running' | 'done' | 'failed';

/** One unit of background work (0012), run by the job runner in src/infra/jobs. */
export interface JobsTable {
  id: Generated<number>;
  /** what to do, e.g. `mail.send`; a handler is registered per kind */
  kind: string;
  /** JSON, the handler's input (ids, not copies of rows) */
  payload: string;
  status: JobStatus;
  /** due from then on (the next attempt's time after a failure) */
  run_at: number;
  /** whose job it is (`account:<id>`), for the kinds that take turns between owners (0035); null: no one's */
  fair_key: string | null;
  /** the order among due jobs of the kind: run_at, or for an owner's job its turn (0035) */
  turn_at: number;
  /** attempts started, counted when claimed */
  attempts: Generated<number>;
  /** null: the kind's retry policy decides */
  max_attempts: number | null;
  /** a running job whose lease has passed was abandoned: another runner may take it */
  lease_until: number | null;
  /** which runner holds the lease (host, pid and a random tag), for diagnostics */
  lease_owner: string | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface IdempotentRequestsTable {
  account_id: number;
  /** the client's Idempotency-Key */
  key: string;
  /** which request the key was first used for, e.g. `upload` or `replace:<link id>` */
  purpose: string;
  /** JSON: the body of the first answer */
  response: string;
  created_at: number;
}

export interface UsersTable {
  id: Generated<number>;
  /** lower-cased */
  email: string;
  name: string;
  password_hash: string | null;
  /** sealed under the master key (context `users.totp_secret:<id>`) */
  totp_secret: string | null;
  /** set once a code from the secret was confirmed: two-factor is on */
  totp_confirmed_at: number | null;
  /** the time step of the last authenticator code accepted, so that none is accepted twice (0039) */
  totp_last_step: number | null;
  created_at: number;
  last_sign_in_at: number | null;
  disabled_at: number | null;
  /** 1: no e-mail about the views of the links this person made (0043) */
  view_alerts_muted: Generated<number>;
}

export interface MembershipsTable {
  user_id: number;
  account_id: number;
  /** owner | admin | member */
  role: string;
  created_at: number;
}

export interface InvitationsTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  role: string;
  token_hash: string;
  invited_by: number | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
}

export interface SessionsTable {
  /** SHA-256 of the id in the cookie */
  id_hash: string;
  /** how the API names the session (listing, revoking); never the cookie's id */
  public_id: string;
  user_id: number;
  /** the account the person is working in now */
  account_id: number;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  ip: string;
  user_agent: string;
}

export interface SignInTokensTable {
  token_hash: string;
  /** setup | magic-link | password-reset | sign-up | sign-in-link */
  purpose: string;
  email: string | null;
  user_id: number | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface RecoveryCodesTable {
  user_id: number;
  code_hash: string;
  used_at: number | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  account_id: number | null;
  at: number;
  /** user | api_key | system */
  actor_type: string;
  actor_id: number | null;
  actor_label: string;
  action: string;
  target_type: string | null;
  target_id: string | null;
  ip: string | null;
  /** JSON object; never a secret */
  details: string;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  links: LinksTable;
  room_links: RoomLinksTable;
  download_tokens: DownloadTokensTable;
  visits: VisitsTable;
  otp_codes: OtpCodesTable;
  access_requests: AccessRequestsTable;
  page_views: PageViewsTable;
  mail_outbox: MailOutboxTable;
  branding: BrandingTable;
  integrations: IntegrationsTable;
  events: EventsTable;
  event_deliveries: EventDeliveriesTable;
  portals: PortalsTable;
  portal_links: PortalLinksTable;
  portal_sessions: PortalSessionsTable;
  link_templates: LinkTemplatesTable;
  stripe_accounts: StripeAccountsTable;
  purchases: PurchasesTable;
  stripe_events: StripeEventsTable;
  account_visitors: AccountVisitorsTable;
  account_daily_views: AccountDailyViewsTable;
  link_view_totals: LinkViewTotalsTable;
  link_daily_views: LinkDailyViewsTable;
  link_page_totals: LinkPageTotalsTable;
  link_visitors: LinkVisitorsTable;
  link_visitor_pages: LinkVisitorPagesTable;
  link_counts: LinkCountsTable;
  block_lists: BlockListsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  view_alert_settings: ViewAlertSettingsTable;
  view_alerts: ViewAlertsTable;
  agreements: AgreementsTable;
  agreement_acceptances: AgreementAcceptancesTable;
  documents: DocumentsTable;
  document_pages: DocumentPagesTable;
  account_analytics_totals: AccountAnalyticsTotalsTable;
  jobs: JobsTable;
  idempotent_requests: IdempotentRequestsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  invitations: InvitationsTable;
  sessions: SessionsTable;
  sign_in_tokens: SignInTokensTable;
  recovery_codes: RecoveryCodesTable;
  audit_log: AuditLogTable;
}

export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type InvitationRow = Selectable<InvitationsTable>;
export type AuditLogRow = Selectable<AuditLogTable>;

export type VisitRow = Selectable<VisitsTable>;
export type AccessRequestRow = Selectable<AccessRequestsTable>;
export type MailOutboxRow = Selectable<MailOutboxTable>;
export type JobRow = Selectable<JobsTable>;

export type LinkRow = Selectable<LinksTable>;
export type NewLink = Insertable<LinksTable>;

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;

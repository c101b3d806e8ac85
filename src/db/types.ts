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
}

export interface VisitsTable {
  id: Generated<number>;
  token_hash: string;
  link_id: string;
  email: string | null;
  otp_email: string | null;
  otp_passed: Generated<number>;
  password_passed: Generated<number>;
  access_request_id: number | null;
  ip: string;
  user_agent: string | null;
  view_id: string | null;
  created_at: number;
  expires_at: number;
  session_started_at: number | null;
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
  subject: string;
  text_body: string;
  html_body: string | null;
  status: MailStatus;
  attempts: Generated<number>;
  next_attempt_at: number;
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
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
}

export type VisitRow = Selectable<VisitsTable>;
export type AccessRequestRow = Selectable<AccessRequestsTable>;
export type MailOutboxRow = Selectable<MailOutboxTable>;

export type LinkRow = Selectable<LinksTable>;
export type NewLink = Insertable<LinksTable>;

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;

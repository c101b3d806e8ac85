import { isIPv4, isIPv6 } from 'node:net';

export const EVENT_TYPES = [
  'link.viewed',
  'link.downloaded',
  'access.requested',
  'access.approved',
  'access.denied',
  'link.expired',
  'purchase.completed',
  'agreement.accepted',
  'link.limit_reached',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * A limit that holds every visitor of a link once reached (`link.limit_reached`, recorded once per
 * hour it is reached in): wrong passwords, e-mail codes sent, access requests, agreements accepted.
 */
export const LINK_LIMITS = ['password', 'code', 'access-request', 'agreement'] as const;
export type LinkLimit = (typeof LINK_LIMITS)[number];

/**
 * What an event carries beyond its type and link: enough to describe it later without
 * reading other tables (the link may be deleted before the event is delivered).
 */
export interface EventPayload {
  linkName: string;
  /** the visitor's e-mail when known (OTP, approval request, purchase) */
  email?: string | null;
  /**
   * false when the visitor typed `email` and nothing proved it (an e-mail gate, an agreement, an
   * access request without a one-time code), true when a code proved it; absent where the event
   * carries no address or another party answers for it (a purchase), and on events before 0.x.
   */
  emailVerified?: boolean;
  /** the visitor's IP address; only ever shown masked */
  ip?: string | null;
  /** link.limit_reached: which of the link's limits */
  limit?: LinkLimit;
  /** purchase.completed: in the currency's smallest unit */
  amount?: number;
  currency?: string;
}

export interface NewEvent {
  accountId: number;
  type: EventType;
  linkId: string | null;
  payload: EventPayload;
  /** When it happened (epoch ms), for a change whose other records name that time too (a view's day); default: now. */
  at?: number;
}

export interface RecordedEvent extends NewEvent {
  id: number;
  createdAt: number;
}

/** 203.0.113.7 → 203.0.113.x; 2001:db8:85a3::7 → 2001:db8:…: enough to tell visitors apart, not to find one. */
export function maskIp(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = mapped ? mapped[1]! : ip;
  if (isIPv4(address)) return `${address.slice(0, address.lastIndexOf('.'))}.x`;
  if (isIPv6(address)) {
    const [first = '', second = ''] = address.split('%')[0]!.split(':');
    return `${first || '0'}:${second || '0'}:…`;
  }
  return 'unknown';
}

/**
 * How an event's visitor is shown (chat messages, recent activity): the e-mail, said to be unproven
 * where it is, so a typed `ceo@client.example` does not read as the CEO; else the masked IP.
 */
export function visitorLabel(payload: Pick<EventPayload, 'email' | 'emailVerified' | 'ip'>): string | null {
  if (payload.email) return payload.emailVerified === false ? `${payload.email} (not verified)` : payload.email;
  return payload.ip ? maskIp(payload.ip) : null;
}

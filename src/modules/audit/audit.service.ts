import type { Principal } from '../../core/auth.js';
import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { AuditLogRow } from '../../db/types.js';
import { isoTime } from '../../core/timestamps.js';
import { countAuditEntries, deleteAuditEntriesBefore, insertAuditEntry, listAuditEntries } from './audit.repo.js';

/** Who did it, as the audit log names them. */
export type AuditActor = { type: 'user' | 'api_key'; id: number; label: string } | { type: 'system'; id: null; label: string };

export interface AuditEvent {
  /** e.g. `link.created`, `member.role_changed`, `sign_in.failed` */
  action: string;
  target?: { type: string; id: string | number };
  /** What changed, never a secret (no password, token, key, secret or session id). */
  details?: Record<string, unknown>;
}

/** Where an audited change came from: a request's principal, or a person and IP without one yet (sign-in). */
export interface AuditSource {
  accountId: number | null;
  actor: AuditActor;
  ip: string | null;
}

/** Who makes a change in an account: a request's principal, or the operator at the command line. */
export type ChangeSource = AuditSource & { accountId: number };

/** The operator running `linkvault …` on the server. */
export const COMMAND_LINE: AuditActor = { type: 'system', id: null, label: 'command line' };
export const commandLineSource = (accountId: number): ChangeSource => ({ accountId, actor: COMMAND_LINE, ip: null });

export function sourceOf(principal: Principal): AuditSource {
  return { accountId: principal.accountId, actor: principal.actor, ip: principal.ip };
}

/**
 * The details of a settings change: the fields changed and their new values. A secret field's
 * value is never written: only whether one is set now, as `<field>_set`.
 */
export function changedFields(changes: Record<string, unknown>, secrets: readonly string[] = []): Record<string, unknown> {
  const details: Record<string, unknown> = { fields: Object.keys(changes) };
  for (const [field, value] of Object.entries(changes)) {
    if (secrets.includes(field)) details[`${field}_set`] = value !== null;
    else details[field] = value;
  }
  return details;
}

export function auditEntryView(row: AuditLogRow) {
  return {
    id: row.id,
    at: isoTime(row.at),
    actor: { type: row.actor_type as AuditActor['type'], id: row.actor_id, label: row.actor_label },
    action: row.action,
    target: row.target_type === null || row.target_id === null ? null : { type: row.target_type, id: row.target_id },
    ip: row.ip,
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}

/**
 * The audit log: one row per change made through a session, a key or the system. Services
 * write it where the change is made, in the change's transaction when there is one.
 */
export function createAuditLog(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  return {
    async record(source: AuditSource | Principal, event: AuditEvent, executor: Executor = db): Promise<void> {
      const { accountId, actor, ip } = 'via' in source ? sourceOf(source) : source;
      await insertAuditEntry(executor, {
        account_id: accountId,
        at: clock(),
        actor_type: actor.type,
        actor_id: actor.id,
        actor_label: actor.label,
        action: event.action,
        target_type: event.target?.type ?? null,
        target_id: event.target === undefined ? null : String(event.target.id),
        ip,
        details: JSON.stringify(event.details ?? {}),
      });
    },

    /** A page of the account's entries, newest first, of one action when `action` is given. */
    async list(accountId: number, query: { page: number; limit: number; action?: string }) {
      const { page, limit, action } = query;
      const [rows, total] = await Promise.all([
        listAuditEntries(db, accountId, { action, limit, offset: (page - 1) * limit }),
        countAuditEntries(db, accountId, action),
      ]);
      return { entries: rows.map(auditEntryView), pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } };
    },

    /** Deletes up to `limit` entries written before `before`; answers how many it deleted. */
    deleteBefore: (before: number, limit: number) => deleteAuditEntriesBefore(db, before, limit),
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;

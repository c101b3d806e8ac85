import type { Executor } from '../../db/executor.js';

const FIELDS = ['id', 'account_id', 'name', 'body', 'pdf_link_id', 'created_at', 'updated_at'] as const;

export function listAgreements(db: Executor, accountId: number) {
  return db.selectFrom('agreements').select(FIELDS).where('account_id', '=', accountId).orderBy('id').execute();
}

export async function countAgreements(db: Executor, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('agreements')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export function findAgreement(db: Executor, accountId: number, id: number) {
  return db.selectFrom('agreements').select(FIELDS).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

/** By id alone: for the visitor of a link that names it. */
export function findAgreementById(db: Executor, id: number) {
  return db.selectFrom('agreements').select(FIELDS).where('id', '=', id).executeTakeFirst();
}

export async function insertAgreement(
  db: Executor,
  agreement: { accountId: number; name: string; body: string | null; pdfLinkId: string | null; now: number },
): Promise<number> {
  const row = await db
    .insertInto('agreements')
    .values({
      account_id: agreement.accountId,
      name: agreement.name,
      body: agreement.body,
      pdf_link_id: agreement.pdfLinkId,
      created_at: agreement.now,
      updated_at: agreement.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateAgreement(
  db: Executor,
  accountId: number,
  id: number,
  patch: { name: string; body: string | null; pdf_link_id: string | null; updated_at: number },
): Promise<void> {
  await db.updateTable('agreements').set(patch).where('account_id', '=', accountId).where('id', '=', id).execute();
}

export async function deleteAgreement(db: Executor, accountId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('agreements').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function insertAcceptance(
  db: Executor,
  acceptance: {
    agreementId: number;
    linkId: string;
    name: string;
    email: string;
    ip: string;
    userAgent: string | null;
    textSha256: string;
    now: number;
  },
): Promise<void> {
  await db
    .insertInto('agreement_acceptances')
    .values({
      agreement_id: acceptance.agreementId,
      link_id: acceptance.linkId,
      name: acceptance.name,
      email: acceptance.email,
      ip: acceptance.ip,
      user_agent: acceptance.userAgent,
      text_sha256: acceptance.textSha256,
      accepted_at: acceptance.now,
    })
    .execute();
}

/** The link's acceptances, newest first; after `beforeId`, those older than it. */
export function listAcceptances(db: Executor, linkId: string, limit: number, beforeId?: number) {
  let query = db
    .selectFrom('agreement_acceptances as acceptance')
    .innerJoin('agreements as agreement', 'agreement.id', 'acceptance.agreement_id')
    .select([
      'acceptance.id as id',
      'agreement.id as agreementId',
      'agreement.name as agreementName',
      'acceptance.name as name',
      'acceptance.email as email',
      'acceptance.ip as ip',
      'acceptance.user_agent as userAgent',
      'acceptance.text_sha256 as textSha256',
      'acceptance.accepted_at as acceptedAt',
    ])
    .where('acceptance.link_id', '=', linkId);
  if (beforeId !== undefined) query = query.where('acceptance.id', '<', beforeId);
  return query.orderBy('acceptance.id', 'desc').limit(limit).execute();
}

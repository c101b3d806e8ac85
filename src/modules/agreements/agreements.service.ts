import type MarkdownIt from 'markdown-it';
import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { AgreementsTable } from '../../db/types.js';
import { badRequest, notFound, unprocessable } from '../../core/errors.js';
import { csvByPages } from '../../core/csv.js';
import { recordName } from '../../core/text.js';
import { isoTime } from '../../core/timestamps.js';
import { sha256Hex } from '../../infra/crypto/tokens.js';
import { loadOnFirstUse } from '../../infra/load-on-first-use.js';
import type { AccountRecords } from '../accounts/account-records.js';
import { changedFields, type AuditLog, type ChangeSource } from '../audit/audit.service.js';
import type { AgreementPolicy } from '../links/link-settings.js';
import type { LinksService } from '../links/links.service.js';
import {
  countAgreements,
  deleteAgreement,
  findAgreement,
  findAgreementById,
  insertAcceptance,
  insertAgreement,
  listAcceptances,
  listAgreements,
  updateAgreement,
} from './agreements.repo.js';

const MAX_BODY = 100_000;
// Each may hold MAX_BODY characters of Markdown: the list stays a few megabytes at most.
export const MAX_AGREEMENTS_PER_ACCOUNT = 100;
const LISTED_ACCEPTANCES = 1000;

const markdownIt = loadOnFirstUse<typeof MarkdownIt>('markdown-it');
let renderer: MarkdownIt | undefined;
// Raw HTML in the text is shown as text, and markdown-it refuses javascript:, vbscript: and data: links.
// Loaded with the first agreement shown, not at start-up (ADR 0012).
const markdown = () => (renderer ??= new (markdownIt())({ html: false, linkify: true, typographer: false }));

type AgreementRow = Pick<AgreementsTable, 'name' | 'body' | 'pdf_link_id' | 'created_at' | 'updated_at'> & { id: number };

/** An agreement as its list shows it: the Markdown without its rendering, which costs tens of milliseconds a text. */
function listed(row: AgreementRow) {
  return {
    id: row.id,
    name: row.name,
    text: row.body,
    pdfLinkId: row.pdf_link_id,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

const view = (row: AgreementRow) => ({ ...listed(row), html: row.body === null ? null : markdown().render(row.body) });

/** What a visitor is asked to accept: the text as safe HTML, or the PDF's link; and the hash of exactly that. */
export interface AgreementForVisitor {
  id: number;
  name: string;
  html: string | null;
  pdfLinkId: string | null;
  textSha256: string;
}

/** The check of a link's or a template's `agreementId`: one of the account's agreements (built before the links service). */
export function createAgreementPolicy(db: Db): AgreementPolicy {
  return {
    async assertUsable(accountId, id) {
      if (!(await findAgreement(db, accountId, id))) throw unprocessable(`agreementId ${id} is not one of your agreements`);
    },
  };
}

const agreementName = (typed: string) => recordName(typed, 'An agreement name');

/** Agreements (NDAs) of an account, and the acceptances visitors leave on links that ask for one. */
export function createAgreementsService(deps: {
  db: Db;
  clock: Clock;
  links: Pick<LinksService, 'ownLink' | 'findForVisitor'>;
  accounts: Pick<AccountRecords, 'lock'>;
  audit: Pick<AuditLog, 'record'>;
}) {
  const { db, clock, links, accounts, audit } = deps;

  async function own(accountId: number, id: number) {
    const row = await findAgreement(db, accountId, id);
    if (!row) throw notFound(`Agreement ${id}`);
    return row;
  }

  /** Exactly one of a Markdown text or a PDF link of the account's. */
  async function checkedContent(accountId: number, input: { text?: string | null; pdfLinkId?: string | null }) {
    const text = input.text?.trim() ? input.text : null;
    const pdfLinkId = input.pdfLinkId ?? null;
    if ((text === null) === (pdfLinkId === null))
      throw unprocessable('An agreement has either a text (Markdown) or a pdfLinkId, not both and not neither');
    if (text !== null && text.length > MAX_BODY) throw badRequest(`field "text" must be at most ${MAX_BODY} characters`);
    if (pdfLinkId !== null) {
      const link = await links.ownLink(accountId, pdfLinkId, { live: false });
      if (link.kind !== 'file' || link.mime !== 'application/pdf') throw unprocessable(`Link ${pdfLinkId} is not a PDF`);
    }
    return { text, pdfLinkId };
  }

  return {
    list: async (accountId: number) => (await listAgreements(db, accountId)).map(listed),
    get: async (accountId: number, id: number) => view(await own(accountId, id)),

    async create(source: ChangeSource, input: { name: string; text?: string | null; pdfLinkId?: string | null }) {
      const name = agreementName(input.name);
      const { text, pdfLinkId } = await checkedContent(source.accountId, input);
      const id = await db.transaction().execute(async (trx) => {
        await accounts.lock(trx, source.accountId);
        if ((await countAgreements(trx, source.accountId)) >= MAX_AGREEMENTS_PER_ACCOUNT) {
          throw unprocessable(`An account can have at most ${MAX_AGREEMENTS_PER_ACCOUNT} agreements`);
        }
        const created = await insertAgreement(trx, { accountId: source.accountId, name, body: text, pdfLinkId, now: clock() });
        await audit.record(source, { action: 'agreement.created', target: { type: 'agreement', id: created }, details: { name, pdfLinkId } }, trx);
        return created;
      });
      return view(await own(source.accountId, id));
    },

    /** Changes its name or content; acceptances keep the hash of the text that was accepted. */
    async update(source: ChangeSource, id: number, input: { name?: string; text?: string | null; pdfLinkId?: string | null }) {
      const name = input.name === undefined ? undefined : agreementName(input.name);
      const current = await own(source.accountId, id);
      const content =
        input.text === undefined && input.pdfLinkId === undefined
          ? { text: current.body, pdfLinkId: current.pdf_link_id }
          : await checkedContent(source.accountId, { text: input.text ?? null, pdfLinkId: input.pdfLinkId ?? null });
      await db.transaction().execute(async (trx) => {
        await updateAgreement(trx, source.accountId, id, {
          name: name ?? current.name,
          body: content.text,
          pdf_link_id: content.pdfLinkId,
          updated_at: clock(),
        });
        const changes = {
          ...(name !== undefined && { name }),
          ...(input.text !== undefined && { text: true }),
          ...(input.pdfLinkId !== undefined && { pdfLinkId: input.pdfLinkId }),
        };
        await audit.record(source, { action: 'agreement.updated', target: { type: 'agreement', id }, details: changedFields(changes) }, trx);
      });
      return view(await own(source.accountId, id));
    },

    /** Links that asked for it stop asking; its acceptances go with it. */
    async remove(source: ChangeSource, id: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (!(await deleteAgreement(trx, source.accountId, id))) throw notFound(`Agreement ${id}`);
        await audit.record(source, { action: 'agreement.deleted', target: { type: 'agreement', id } }, trx);
      });
    },

    /**
     * What the visitor of a link naming agreement `id` is asked to accept; undefined when the
     * agreement is gone, `text-missing` when it stands but its PDF was deleted: nothing can be
     * accepted, so the gate stays shut.
     */
    async forVisitor(id: number): Promise<AgreementForVisitor | 'text-missing' | undefined> {
      const row = await findAgreementById(db, id);
      if (!row) return undefined;
      if (row.body !== null) return { id, name: row.name, html: markdown().render(row.body), pdfLinkId: null, textSha256: sha256Hex(row.body) };
      const pdf = row.pdf_link_id === null ? undefined : await links.findForVisitor(row.pdf_link_id);
      if (!pdf?.sha256) return 'text-missing';
      return { id, name: row.name, html: null, pdfLinkId: pdf.id, textSha256: pdf.sha256 };
    },

    accept: (
      trx: Executor,
      acceptance: { agreementId: number; linkId: string; name: string; email: string; ip: string; userAgent: string | null; textSha256: string },
    ) => insertAcceptance(trx, { ...acceptance, now: clock() }),

    async acceptances(accountId: number, linkId: string) {
      await links.ownLink(accountId, linkId, { live: false });
      return (await listAcceptances(db, linkId, LISTED_ACCEPTANCES)).map((row) => ({ ...row, acceptedAt: isoTime(row.acceptedAt) }));
    },

    /** Every acceptance of the link as CSV lines, newest first, read a page at a time while the answer is sent. */
    async acceptancesCsv(accountId: number, linkId: string): Promise<AsyncIterable<string>> {
      await links.ownLink(accountId, linkId, { live: false });
      return csvByPages({
        header: ['accepted_at', 'name', 'email', 'ip', 'user_agent', 'agreement', 'text_sha256'],
        pageSize: LISTED_ACCEPTANCES,
        readPage: (beforeId: number | undefined) => listAcceptances(db, linkId, LISTED_ACCEPTANCES, beforeId),
        cursorAfter: (last) => last.id,
        cells: (row) => [isoTime(row.acceptedAt), row.name, row.email, row.ip, row.userAgent, row.agreementName, row.textSha256],
      });
    },
  };
}

export type AgreementsService = ReturnType<typeof createAgreementsService>;

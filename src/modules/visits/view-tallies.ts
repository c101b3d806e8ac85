import type { Executor } from '../../db/executor.js';

/** A view session just opened, as a link's analytics count it. */
export interface OpenedView {
  linkId: string;
  email: string | null;
  /** a one-time code proved `email` (false when it was only typed) */
  emailVerified: boolean;
  ip: string;
  userAgent: string | null;
  at: number;
}

/** Seconds a view session's visitor spent on one page. */
export interface PageRead {
  linkId: string;
  email: string | null;
  ip: string;
  page: number;
  seconds: number;
}

/**
 * Read models of a link's views, kept in step with the visits and page views they count, on
 * the same transaction (analytics implements it: its link tallies). A leaf: visits calls it
 * without importing analytics.
 */
export interface ViewTallies {
  viewOpened(trx: Executor, view: OpenedView): Promise<void>;
  pageRead(trx: Executor, read: PageRead): Promise<void>;
}

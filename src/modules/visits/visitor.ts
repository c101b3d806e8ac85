/** Who a visitor's request comes from, and what their view session says of them (a leaf: services of several modules name these). */
export interface Visitor {
  /** the visit cookie's token, if the browser sent one */
  token: string | undefined;
  ip: string;
  userAgent: string | null;
  /** Set when the request came in on an account's custom domain: only that account's links exist there. */
  hostAccountId?: number;
  /** Set when the link is opened inside a data room: the room, and the token of the visitor's visit of it. */
  room?: { id: string; token: string | undefined };
  /** Set when a client portal opens the link: SHA-256 of its session's cookie, whose visit of the link is taken up again. */
  portalSession?: string;
}

/** Who holds a view session: what the watermark names and the purchase form pre-fills. */
export interface VisitorSession {
  /** the visit's own row: with `viewId`, what names this view alone (the short id may repeat across visits) */
  visitId: number;
  email: string | null;
  ip: string;
  /** the short id the watermark carries */
  viewId: string;
  /** when the view began (epoch ms): the time a page's watermark names */
  startedAt: number;
  expiresAt: number;
}

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import type { Brand } from '../modules/branding/brand.js';
import { createPageRenderer } from '../viewer/render.js';

type OwnerTemplate = 'sign-in' | 'sign-in-link' | 'sign-up' | 'setup' | 'invite' | 'reset-password' | 'confirm-email' | 'notice';

const render = createPageRenderer<OwnerTemplate>(path.join(path.dirname(fileURLToPath(import.meta.url)), 'templates'), {
  stylesheets: ['/assets/viewer.css', '/assets/owner-pages.css'],
  script: '/assets/owner-pages.js',
});

/** These are linkvault's own pages: without a company name of the account's, they wear the product's. */
const PRODUCT_NAME = 'linkvault';

/** Renders an owner page: the visitor pages' layout and brand, the owner pages' own stylesheet and script. */
export function sendOwnerPage(
  reply: FastifyReply,
  page: { template: OwnerTemplate; status?: number; title: string; brand: Brand; data?: Record<string, unknown> },
): FastifyReply {
  const brand = { ...page.brand, companyName: page.brand.companyName ?? PRODUCT_NAME };
  return render(reply, {
    template: page.template,
    status: page.status,
    title: `${page.title} · ${brand.companyName}`,
    brand,
    data: page.data ?? {},
    script: page.template !== 'notice',
  });
}

export interface Notice {
  status: number;
  heading: string;
  /** sentences, with commands to type set as code */
  text: Array<string | { code: string }>;
  action?: { href: string; label: string };
}

/** A page that says why there is nothing to do here, and where to go instead. */
export const sendNotice = (reply: FastifyReply, brand: Brand, notice: Notice): FastifyReply =>
  sendOwnerPage(reply, { template: 'notice', status: notice.status, title: notice.heading, brand, data: { ...notice } });

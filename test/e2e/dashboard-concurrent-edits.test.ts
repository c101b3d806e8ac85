/**
 * Two people at work on the same thing: a save sends what this person changed, so a colleague's
 * change to another field, made while the screen was open, is never put back.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { openScreen, openSection, signedInDashboard } from '../helpers/dashboard.js';
import { createLink } from '../helpers/files.js';

after(closeBrowser);

/** Clicks `button` and waits for the answer of the request it sends to `path`. */
async function saveWith(page: Page, button: string, path: string) {
  const answer = page.waitForResponse((response) => response.url().endsWith(path) && response.request().method() !== 'GET');
  await page.getByRole('button', { name: button }).click();
  assert.equal((await answer).status(), 200);
}

test("a template, a portal, the branding and a room: my save keeps a colleague's change to another field", async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  const { page } = await signedInDashboard(t, app, { accountId });

  const templateId = (await http.post('/api/templates', { name: 'NDA pack' })).body.id as number;
  await openScreen(page, app, `/app/templates/${templateId}`, 'NDA pack');
  await http.patch(`/api/templates/${templateId}`, { bookingUrl: 'https://calendar.example/ann', hasWatermark: true });
  await page.getByLabel('Template name').fill('NDA pack 2026');
  await saveWith(page, 'Save template', `/api/templates/${templateId}`);
  const template = (await http.get(`/api/templates/${templateId}`)).body.template;
  assert.deepEqual([template.name, template.bookingUrl, template.hasWatermark], ['NDA pack 2026', 'https://calendar.example/ann', true]);

  const portalId = (await http.post('/api/client-portals', { name: 'Acme', slug: 'acme', allowedEmails: ['ceo@acme.example'] })).body.id as string;
  await openScreen(page, app, `/app/portals/${portalId}`, 'Acme');
  await http.patch(`/api/client-portals/${portalId}`, { allowedEmails: ['ceo@acme.example', 'cfo@acme.example'] });
  await page.getByLabel('Portal name').fill('Acme Corporation');
  await saveWith(page, 'Save portal', `/api/client-portals/${portalId}`);
  const portal = (await http.get(`/api/client-portals/${portalId}`)).body.portal;
  assert.deepEqual([portal.name, portal.allowedEmails], ['Acme Corporation', ['ceo@acme.example', 'cfo@acme.example']]);

  await openSection(page, app, 'branding');
  await http.post('/api/branding', { primary_color: '#aa0011' });
  await page.getByLabel('Company name', { exact: true }).fill('Northwind');
  await saveWith(page, 'Save branding', '/api/branding');
  const branding = (await http.get('/api/branding')).body;
  assert.deepEqual([branding.company_name, branding.primary_color], ['Northwind', '#aa0011']);

  // Saving what was not changed sends nothing and says so.
  await page.getByRole('button', { name: 'Save branding' }).click();
  await page.getByText('Nothing to save: nothing here was changed').waitFor();

  // A room's list: my addition is made to the list as it is now, with the link a colleague added.
  const [alpha, bravo, charlie] = await Promise.all(['alpha', 'bravo', 'charlie'].map((name) => createLink(http, name, `${name}.txt`)));
  const roomId = (await http.post('/api/links/room', { name: 'Deal room', children_ids: [alpha] })).body.id as string;
  await openScreen(page, app, `/app/rooms/${roomId}`, 'Deal room');
  await http.put(`/api/links/${roomId}/children`, { children_ids: [alpha, bravo] });
  await saveWith(page, 'Add charlie.txt', `/api/links/${roomId}/children`);
  const children = (await http.get(`/api/links/${roomId}/children`)).body.children as Array<{ id: string }>;
  assert.deepEqual(
    children.map((child) => child.id),
    [alpha, bravo, charlie],
  );
});

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, openScreen, signedInDashboard, VIEWPORTS } from '../helpers/dashboard.js';
import { createLink } from '../helpers/files.js';

after(closeBrowser);

for (const { name: width, viewport } of VIEWPORTS) {
  test(`portals at ${width} width: made with an address from its name, links added and removed, edited, copied, deleted`, async (t) => {
    const app = await startApp(t);
    const { accountId, http } = await app.createAccount();
    const { page } = await signedInDashboard(t, app, { accountId, viewport });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const deck = await createLink(http, 'deck', 'deck.txt');
    const terms = await createLink(http, 'terms', 'terms.txt');
    await openScreen(page, app, '/app/portals', 'Portals');
    await page.getByRole('heading', { name: 'Make your first client portal' }).waitFor();
    await checkScreen(page, `portals-empty-${width}`);

    // The address follows the name until it is typed.
    await page.getByRole('button', { name: 'New portal' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New client portal' });
    await dialog.getByLabel('Portal name').fill('Acme Corp.');
    assert.equal(await dialog.getByLabel('Address').inputValue(), 'acme-corp');
    await dialog.getByLabel('Clients who may sign in').fill('ceo@acme.example\ncfo@acme.example');
    await checkScreen(page, `portals-new-${width}`);
    await dialog.getByRole('button', { name: 'Create portal' }).click();
    await page.waitForURL(/\/app\/portals\/[0-9A-Za-z]+$/);
    const portalId = new URL(page.url()).pathname.split('/').at(-1)!;
    await page.getByRole('heading', { level: 1, name: 'Acme Corp.' }).waitFor();
    const portalOf = async () => (await http.get(`/api/client-portals/${portalId}`)).body.portal;
    assert.deepEqual((await portalOf()).allowedEmails, ['ceo@acme.example', 'cfo@acme.example']);

    // Links: added from the picker, removed from the list, each saved at once.
    const inPortal = page.getByRole('list', { name: 'Links in this portal' });
    await page.getByRole('button', { name: 'Add deck.txt' }).click();
    await inPortal.getByRole('link', { name: 'deck.txt' }).waitFor();
    await page.getByRole('button', { name: 'Add terms.txt' }).click();
    await inPortal.getByRole('link', { name: 'terms.txt' }).waitFor();
    assert.deepEqual(((await portalOf()).links as Array<{ id: string }>).map((link) => link.id).sort(), [deck, terms].sort());
    await page.getByRole('button', { name: 'Remove deck.txt' }).click();
    await inPortal.getByRole('link', { name: 'deck.txt' }).waitFor({ state: 'detached' });
    assert.deepEqual(
      ((await portalOf()).links as Array<{ id: string }>).map((link) => link.id),
      [terms],
    );
    assert.equal((await http.get(`/api/links/${deck}`)).status, 200, 'a link removed from a portal is kept');

    // A wrong address is refused beside its field; a right one is saved with the new name.
    const address = page.getByLabel('Address');
    await address.fill('No Spaces!');
    await page.getByRole('button', { name: 'Save portal' }).click();
    await page.locator('.field-error').first().waitFor();
    assert.equal(await address.getAttribute('aria-invalid'), 'true');
    await address.fill('acme');
    await page.getByLabel('Portal name').fill('Acme Corporation');
    const saved = page.waitForResponse(
      (response) => response.url().endsWith(`/api/client-portals/${portalId}`) && response.request().method() === 'PATCH',
    );
    await page.getByRole('button', { name: 'Save portal' }).click();
    assert.equal((await saved).status(), 200);
    await page.getByRole('heading', { level: 1, name: 'Acme Corporation' }).waitFor();
    const portal = await portalOf();
    assert.equal(portal.slug, 'acme');
    assert.equal(await address.getAttribute('aria-invalid'), null);
    await checkScreen(page, `portal-${width}`);

    await page.getByRole('button', { name: 'Copy portal link' }).click();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), portal.url);
    assert.match(portal.url, /\/p\/acme$/);

    await page.getByRole('link', { name: 'All portals' }).click();
    const rows = page.getByRole('table', { name: 'Client portals' }).getByRole('row');
    await rows.filter({ hasText: 'Acme Corporation' }).getByText(portal.url).waitFor();
    await checkScreen(page, `portals-${width}`);

    await rows.getByRole('link', { name: 'Acme Corporation' }).click();
    await page.getByRole('button', { name: 'Delete portal' }).click();
    await page.getByRole('dialog', { name: 'Delete Acme Corporation?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Make your first client portal' }).waitFor();
    assert.equal((await http.get(`/api/client-portals/${portalId}`)).status, 404);
    assert.equal((await http.get(`/api/links/${terms}`)).status, 200);
  });
}

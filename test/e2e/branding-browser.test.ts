import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import sharp from 'sharp';
import { startApp } from '../helpers/app.js';
import { closeBrowser, openPage, screenshot } from '../helpers/browser.js';
import { createLink } from '../helpers/files.js';

after(closeBrowser);

test('a branded viewer page: logo, company name, colours and button radius', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('business');
  const logo = await sharp({ create: { width: 120, height: 40, channels: 3, background: { r: 20, g: 120, b: 90 } } })
    .png()
    .toBuffer();
  const form = new FormData();
  for (const [name, value] of Object.entries({
    company_name: 'Evergreen Partners',
    primary_color: '#14785a',
    bg_color: '#eef6f2',
    btn_radius: '999px',
    card_border_color: '#14785a',
    text_color: '#0b2e22',
    logo_size: '48',
  }))
    form.append(name, value);
  form.append('logo', new Blob([new Uint8Array(logo)]), 'logo.png');
  assert.equal((await http.post('/api/branding', form)).status, 200);
  const id = await createLink(http, 'x', 'Term sheet.pdf', { addPassword: '1', password: 'pw' });

  const page = await openPage(t);
  await page.goto(`${app.url}/v/${id}`);
  await page.getByText('Evergreen Partners').waitFor();
  const logoBox = await page.locator('img.logo').boundingBox();
  assert.equal(Math.round(logoBox!.height), 48);
  const button = page.getByRole('button', { name: 'Open' });
  // Runs in the page; the test is compiled without DOM types, hence globalThis.
  assert.equal(await button.evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor), 'rgb(20, 120, 90)');
  assert.equal(await page.evaluate('getComputedStyle(document.body).backgroundColor'), 'rgb(238, 246, 242)');
  await screenshot(page, 'branded-viewer');
});

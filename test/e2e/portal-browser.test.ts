import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser, openPage, screenshot, waitForPages } from '../helpers/browser.js';
import { createLink } from '../helpers/files.js';
import { makePdf } from '../helpers/pdf.js';
import { otpCodeIn, startSmtp } from '../helpers/smtp.js';

after(closeBrowser);

test('portal journey: e-mail, code from the SMTP server, the list, a link with an OTP gate opens without asking again', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url, MAIL_FROM: 'linkvault <share@example.com>' } });
  const { http } = await app.createAccount('business');
  await http.post('/api/branding', { company_name: 'Northwind Advisory', primary_color: '#0b6e4f' });
  const report = await createLink(http, await makePdf(2), 'Quarterly report.pdf', { requiresOtp: '1', allowedEmails: 'dana@client.example' });
  const contract = await createLink(http, await makePdf(1), 'Contract.pdf', { addPassword: '1', password: 'open sesame' });
  const retired = await createLink(http, 'old', 'Retired.txt');
  await http.patch(`/api/links/${retired}/active`, { isActive: false });
  const portal = await http.post('/api/client-portals', { name: 'Client room: Dana Ltd', slug: 'dana-ltd', allowedEmails: ['dana@client.example'] });
  await http.post(`/api/client-portals/${portal.body.id}/links`, { linkIds: [report, contract, retired] });

  const page = await openPage(t);
  await page.goto(`${app.url}/p/dana-ltd`);
  await page.getByRole('heading', { name: 'Client room: Dana Ltd' }).waitFor();
  assert.match(await page.locator('header.brand').innerText(), /Northwind Advisory/, 'branded like the /v pages');
  await screenshot(page, 'portal-email');
  await page.getByLabel('E-mail address').fill('dana@client.example');
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByLabel('Code').waitFor();
  await screenshot(page, 'portal-code');

  const mail = await smtp.waitFor('dana@client.example');
  assert.equal(mail.from, 'share@example.com');
  assert.match(mail.subject, /Client room: Dana Ltd/);
  await page.getByLabel('Code').fill(otpCodeIn(mail));
  await page.getByRole('button', { name: 'Sign in' }).click();
  const documents = page.getByRole('list', { name: 'Documents' });
  await documents.waitFor();
  const listed = (await documents.getByRole('link').allInnerTexts()).map((text) => text.replace(/\s+/g, ' '));
  assert.deepEqual(listed, ['Contract.pdf PDF', 'Quarterly report.pdf PDF'], 'name and type; the inactive link is hidden');
  await screenshot(page, 'portal-list');

  await page.getByRole('link', { name: /Quarterly report\.pdf/ }).click();
  await waitForPages(page, 2);
  assert.equal(new URL(page.url()).pathname, `/v/${report}`);
  assert.equal(await page.getByLabel('E-mail address').count(), 0, 'no OTP asked again');
  await screenshot(page, 'portal-document');
  assert.equal(smtp.received.filter((mail) => mail.to.includes('dana@client.example')).length, 1, "one code only: the portal's");

  await page.goto(`${app.url}/p/dana-ltd`);
  await page.getByRole('link', { name: /Contract\.pdf/ }).click();
  await page.getByLabel('Password').waitFor();
  assert.equal(new URL(page.url()).pathname, `/v/${contract}`);
  await screenshot(page, 'portal-password');
  await page.getByLabel('Password').fill('open sesame');
  await page.getByRole('button', { name: 'Open' }).click();
  await waitForPages(page, 1);

  await page.goto(`${app.url}/p/dana-ltd`);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('E-mail address').waitFor();
});

test('portal: an address not on the list is refused without revealing the list', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { http } = await app.createAccount('professional');
  await http.post('/api/client-portals', { name: 'Board pack', slug: 'board-pack', allowedEmails: ['chair@board.example'] });

  const page = await openPage(t, { viewport: { width: 390, height: 844 } }); // a phone
  await page.goto(`${app.url}/p/board-pack`);
  await page.getByLabel('E-mail address').fill('eve@elsewhere.example');
  await page.getByRole('button', { name: 'Send me a code' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.innerText(), /not allowed into this portal/);
  assert.doesNotMatch(await page.content(), /chair@board\.example/);
  assert.equal(await page.getByLabel('E-mail address').count(), 1, 'still on the e-mail step');
  await screenshot(page, 'portal-refused');
  assert.equal(smtp.received.length, 0, 'no mail sent');
});

import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { after, test } from 'node:test';
import { closeBrowser, openPage, screenshot, waitForPages } from '../helpers/browser.js';
import { sha256 } from '../helpers/files.js';
import { makePdf } from '../helpers/pdf.js';
import { startSmtp } from '../helpers/smtp.js';
import { sellerWithPaidLink, startAppWithStripe } from '../helpers/stripe-stand-in.js';

after(closeBrowser);

test('buying the original: preview, pay on Stripe Checkout, come back with session_id, download the very bytes uploaded', async (t) => {
  const smtp = await startSmtp(t);
  const { app, stripe } = await startAppWithStripe(t, { env: { SMTP_URL: smtp.url } });
  const original = await makePdf(4);
  const { linkId } = await sellerWithPaidLink(app, stripe, original, 'Market study.pdf', { previewPages: '2' });
  const page = await openPage(t);

  await page.goto(`${app.url}/v/${linkId}`);
  await waitForPages(page, 2);
  await page.getByRole('heading', { name: 'Download the original — €12.00' }).waitFor();
  await screenshot(page, 'payments-offer');

  await page.getByLabel('E-mail for the receipt').fill('buyer@example.net');
  await page.getByRole('button', { name: 'Buy for €12.00' }).click();
  await page.waitForURL(`${stripe.url}/c/pay/*`);
  await screenshot(page, 'payments-stripe-checkout');
  await page.getByRole('button', { name: 'Pay' }).click();

  await page.waitForURL(new RegExp(`/v/${linkId}\\?session_id=cs_test_\\w+$`));
  await waitForPages(page, 2);
  await screenshot(page, 'payments-paid');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the original' }).click()]);
  assert.equal(download.suggestedFilename(), 'Market study.pdf');
  assert.equal(sha256(await fs.readFile((await download.path())!)), sha256(original));

  const receipt = await smtp.waitFor('buyer@example.net');
  assert.match(receipt.text, /download-original\?token=/);
});

test('a checkout Stripe cannot start is explained on the page, not by leaving it', async (t) => {
  const { app, stripe } = await startAppWithStripe(t);
  const { linkId, stripeAccountId } = await sellerWithPaidLink(app, stripe, await makePdf(1), 'Deck.pdf');
  stripe.setChargesEnabled(stripeAccountId, false);
  const page = await openPage(t);
  await page.goto(`${app.url}/v/${linkId}`);
  await page.getByLabel('E-mail for the receipt').fill('buyer@example.net');
  await page.getByRole('button', { name: 'Buy for €12.00' }).click();
  // The cached "can charge" is a minute old at most: here Stripe itself refuses the destination.
  await page.getByRole('alert').filter({ hasText: 'The owner of this document cannot accept payments right now' }).waitFor();
  assert.doesNotMatch(await page.getByRole('alert').innerText(), /acct_/, "nothing of the owner's Stripe account is shown");
  await screenshot(page, 'payments-checkout-refused');
  assert.equal(new URL(page.url()).pathname, `/v/${linkId}`);
  assert.equal(stripe.sessions.size, 0);
});

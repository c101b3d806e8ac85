/**
 * An account's brand colour, whatever it is, leaves visitors able to read: button text follows it
 * unless chosen, and links and focus rings wear a shade of it that reads on the page, in the
 * visitor pages (measured in Chromium) and in the e-mails.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser, openPage } from '../helpers/browser.js';
import { createLink } from '../helpers/files.js';
import { startSmtp } from '../helpers/smtp.js';

after(closeBrowser);

/** WCAG 2 contrast of two `rgb(r, g, b)` or `#rrggbb` colours, written here apart from the app's own. */
function contrast(a: string, b: string): number {
  const channels = (colour: string) =>
    colour.startsWith('#') ? [1, 3, 5].map((at) => parseInt(colour.slice(at, at + 2), 16)) : colour.match(/\d+/g)!.slice(0, 3).map(Number);
  const luminance = (colour: string) => {
    const [r, g, b] = channels(colour).map((value) => {
      const s = value / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high! + 0.05) / (low! + 0.05);
}

// The tests' TypeScript has no DOM types: the browser's getComputedStyle is reached through globalThis.
type Styles = { getComputedStyle(element: unknown): Record<string, string> };

test('a brand colour alone: button text follows it, and focus rings and links read on the page, whatever the colour', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('business');
  const id = await createLink(http, 'board pack', 'b.txt', { addPassword: '1', password: 'pw' });
  const page = await openPage(t);
  const style = (selector: string, property: string) =>
    page
      .locator(selector)
      .first()
      .evaluate((element, name) => (globalThis as unknown as Styles).getComputedStyle(element)[name]!, property);

  for (const colour of ['#ffff00', '#f0f0f0', '#ff8800', '#999999', '#777777', '#2457d6', '#111111']) {
    assert.equal((await http.post('/api/branding', { primary_color: colour })).status, 200);
    const buttonText = (await http.get('/api/branding')).body.btn_text_color;
    assert.ok(contrast(buttonText, colour) >= 4.5, `${colour}: button text ${buttonText}`);

    await page.goto(`${app.url}/v/${id}`);
    const submit = 'form button[type="submit"]';
    const label = await style(submit, 'color');
    assert.ok(contrast(label, await style(submit, 'backgroundColor')) >= 4.5, `${colour}: the button's label ${label}`);
    // The keyboard's way to the form's button, whose ring is drawn on the card around it.
    for (let tab = 0; tab < 10 && !(await page.locator(`${submit}:focus`).count()); tab++) await page.keyboard.press('Tab');
    const focused = page.locator(`${submit}:focus-visible`);
    const ring = await focused.evaluate((element) => (globalThis as unknown as Styles).getComputedStyle(element).outlineColor!);
    const card = await style('.card', 'backgroundColor');
    assert.ok(contrast(ring, card) >= 3, `${colour}: focus ring ${ring} on the card ${card}`);
    const accent = (await page.evaluate('getComputedStyle(document.documentElement).getPropertyValue("--accent")')) as string;
    assert.ok(contrast(accent.trim(), card) >= 4.5, `${colour}: links in ${accent} on the card ${card}`);
    assert.ok(contrast(accent.trim(), await style('body', 'backgroundColor')) >= 4.5, `${colour}: links on the page`);
  }

  // A colour the account chose for the button text is its own choice: kept, even where it reads poorly.
  await http.post('/api/branding', { primary_color: '#ff8800', btn_text_color: '#ffffff' });
  assert.equal((await http.get('/api/branding')).body.btn_text_color, '#ffffff');
});

test("an e-mail's button and its link below it read on a light brand colour", async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { http } = await app.createAccount('business');
  await http.post('/api/branding', { primary_color: '#ffff00' });
  const id = await createLink(http, 'x', 'pitch.pdf');
  assert.equal((await http.post(`/api/links/${id}/share`, { emails: ['ann@example.com'] })).status, 200);
  const mail = await smtp.waitFor('ann@example.com');
  const html = mail.html as string;
  const label = /color:(#[0-9a-f]{6});text-decoration:none;/.exec(html)?.[1];
  const link = /color:(#[0-9a-f]{6});word-break:break-all;/.exec(html)?.[1];
  assert.ok(label && contrast(label, '#ffff00') >= 4.5, `button label ${label}`);
  assert.ok(link && contrast(link, '#ffffff') >= 4.5, `link ${link} on the white card`);
});

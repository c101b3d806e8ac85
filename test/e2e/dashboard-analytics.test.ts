import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, installClock, openScreen, refreshNow, signedInDashboard, VIEWPORTS } from '../helpers/dashboard.js';
import { createLink } from '../helpers/files.js';
import { VisitorClient } from '../helpers/visitor.js';

after(closeBrowser);

for (const { name: width, viewport } of VIEWPORTS) {
  test(`analytics at ${width} width: empty for a new account, then the views, top links and activity of its links`, async (t) => {
    const app = await startApp(t);
    const { accountId, http } = await app.createAccount();
    // West of UTC, where a UTC day read as local time shows as the day before.
    const { page } = await signedInDashboard(t, app, { accountId, viewport, timezoneId: 'America/Los_Angeles' });
    await installClock(page);
    await openScreen(page, app, '/app/analytics', 'Analytics');
    await page.getByRole('heading', { name: 'No views yet' }).waitFor();
    await checkScreen(page, `analytics-empty-${width}`);

    const deck = await createLink(http, 'the deck', 'Deck.txt');
    const memo = await createLink(http, 'the memo', 'Memo.txt');
    for (const id of [deck, deck, memo]) assert.equal((await new VisitorClient(app.url).get(`/v/${id}`)).status, 200);

    // The screen refreshes itself: the views arrive without a reload.
    await refreshNow(page);
    const views = page.locator('.link-total', { hasText: 'Views' }).locator('dd');
    await views.filter({ hasText: '3' }).waitFor();
    const top = page.getByRole('region', { name: 'Most viewed links' }).getByRole('link');
    assert.deepEqual(await top.allInnerTexts(), ['Deck.txt', 'Memo.txt']);
    const today = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date());
    assert.equal(
      await page
        .locator('table', { has: page.locator('caption', { hasText: 'Views over the last 30 days' }) })
        .locator('tbody tr')
        .last()
        .locator('td')
        .first()
        .textContent(),
      today,
      "the chart's days are UTC days",
    );
    assert.equal(await top.first().getAttribute('href'), `/app/documents/${deck}/analytics`);
    await page
      .getByRole('region', { name: 'Recent activity' })
      .getByText(/viewed Memo\.txt/)
      .waitFor();
    // What strangers filling one of a link's hourly limits records (the visitor pages' tests reach it for real).
    const { database, services } = app.runtime;
    await services.events.record(database.db, {
      accountId,
      type: 'link.limit_reached',
      linkId: memo,
      payload: { linkName: 'Memo.txt', limit: 'password' },
    });
    await refreshNow(page);
    await page
      .getByRole('region', { name: 'Recent activity' })
      .getByText('Wrong passwords on Memo.txt reached the hourly limit: visitors wait until the hour ends, or set a new password')
      .waitFor();
    await checkScreen(page, `analytics-${width}`);
  });
}

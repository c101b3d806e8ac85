import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, DESKTOP, openScreen, openSection, PHONE, signedInDashboard, VIEWPORTS } from '../helpers/dashboard.js';

// Every settings section drawn and checked by axe, at both widths: a file of its own, as the
// two walks take a minute or more between them on a loaded machine.
after(closeBrowser);

for (const { name, viewport } of VIEWPORTS) {
  test(`every section at ${name} width, light and accessible`, async (t) => {
    const app = await startApp(t);
    const { accountId, http } = await app.createAccount('business');
    await http.post('/api/integrations', {
      type: 'slack',
      config: { webhook_url: 'https://hooks.slack.com/services/T0/B0/XXXX', channel: '#deals' },
    });
    const { page } = await signedInDashboard(t, app, { role: 'owner', accountId, viewport });
    if (viewport === PHONE) {
      await openScreen(page, app, '/app/settings', 'Settings');
      await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Members' }).waitFor();
      await checkScreen(page, `settings-index-${name}`);
    }
    for (const section of [
      'profile',
      'two-factor',
      'sessions',
      'members',
      'api-keys',
      'branding',
      'integrations',
      'webhooks',
      'payments',
      'agreements',
      'sharing',
      'audit-log',
    ]) {
      await openSection(page, app, section);
      if (section === 'payments') await page.getByText('Payments are not set up on this server.').waitFor();
      await checkScreen(page, `settings-${section}-${name}`);
    }
    assert.ok(viewport === DESKTOP || viewport === PHONE);
  });
}

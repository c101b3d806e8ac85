import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, openScreen, signedInDashboard, VIEWPORTS } from '../helpers/dashboard.js';
import { createLink } from '../helpers/files.js';

after(closeBrowser);

for (const { name: width, viewport } of VIEWPORTS) {
  test(`rooms at ${width} width: made from picked links, rearranged, its link copied, listed, deleted with its links kept`, async (t) => {
    const app = await startApp(t);
    const { accountId, http } = await app.createAccount();
    const { page } = await signedInDashboard(t, app, { accountId, viewport });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await openScreen(page, app, '/app/rooms', 'Rooms');
    await page.getByRole('heading', { name: 'Make your first data room' }).waitFor();
    await checkScreen(page, `rooms-empty-${width}`);

    const alpha = await createLink(http, 'alpha', 'alpha.txt');
    const bravo = await createLink(http, 'bravo', 'bravo.txt');
    const charlie = await createLink(http, 'charlie', 'charlie.txt');
    const roomOfOthers = (await http.post('/api/links/room', { name: 'Older room', children_ids: [alpha] })).body.id as string;

    // A new room: a name and links picked by searching; a room is never offered as a child.
    await page.getByRole('button', { name: 'New room' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New data room' });
    await dialog.getByLabel('Room name').fill('Series A');
    const create = dialog.getByRole('button', { name: 'Create room' });
    assert.equal(await create.isDisabled(), true, 'a room needs a link');
    await dialog.getByRole('button', { name: 'Add alpha.txt' }).click();
    await dialog.getByLabel('Find a link to add').fill('brav');
    await dialog.getByRole('button', { name: 'Add bravo.txt' }).click();
    await dialog.getByLabel('Find a link to add').fill('');
    await dialog.getByRole('button', { name: 'Add charlie.txt' }).waitFor();
    assert.equal(await dialog.getByRole('button', { name: 'Add Older room' }).count(), 0);
    await checkScreen(page, `rooms-new-${width}`);
    await create.click();
    await page.waitForURL(/\/app\/rooms\/[0-9A-Za-z]+$/);
    const roomId = new URL(page.url()).pathname.split('/').at(-1)!;
    await page.getByRole('heading', { level: 1, name: 'Series A' }).waitFor();

    // Each change is saved at once: add, move, remove.
    const inRoom = page.getByRole('list', { name: 'Documents in this room' });
    const childIds = async () => ((await http.get(`/api/links/${roomId}/children`)).body.children as Array<{ id: string }>).map((c) => c.id);
    const settled = async (expected: string[]) => {
      await inRoom
        .getByRole('link')
        .nth(expected.length - 1)
        .waitFor();
      for (let tries = 0; tries < 50 && JSON.stringify(await childIds()) !== JSON.stringify(expected); tries++) await page.waitForTimeout(100);
      assert.deepEqual(await childIds(), expected);
    };
    await settled([alpha, bravo]);
    await page.getByRole('button', { name: 'Add charlie.txt' }).click();
    await settled([alpha, bravo, charlie]);
    await page.getByRole('button', { name: 'Move charlie.txt up' }).click();
    await settled([alpha, charlie, bravo]);
    await page.getByRole('button', { name: 'Remove alpha.txt' }).click();
    await inRoom.getByRole('link', { name: 'alpha.txt' }).waitFor({ state: 'detached' });
    await settled([charlie, bravo]);
    assert.deepEqual(await inRoom.getByRole('link').allInnerTexts(), ['charlie.txt', 'bravo.txt']);
    await checkScreen(page, `room-${width}`);

    await page.getByRole('button', { name: 'Copy link' }).click();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), (await http.get(`/api/links/${roomId}`)).body.viewer_url);

    // The list: newest first, with how many links each room shows.
    await page.getByRole('link', { name: 'All rooms' }).click();
    const rows = page.getByRole('table', { name: 'Data rooms' }).getByRole('row');
    await rows.filter({ hasText: 'Series A' }).getByText('2 links').waitFor();
    assert.deepEqual(await rows.getByRole('link').allInnerTexts(), ['Series A', 'Older room']);
    await checkScreen(page, `rooms-${width}`);

    // Deleting asks first, and keeps the documents.
    await rows.getByRole('link', { name: 'Series A' }).click();
    await page.getByRole('button', { name: 'Delete room' }).click();
    await page.getByRole('dialog', { name: 'Delete Series A?' }).getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/app\/rooms$/);
    await rows.getByRole('link', { name: 'Series A' }).waitFor({ state: 'detached' });
    assert.equal((await http.get(`/api/links/${roomId}`)).status, 404);
    for (const id of [alpha, bravo, charlie, roomOfOthers]) assert.equal((await http.get(`/api/links/${id}`)).status, 200);
  });
}

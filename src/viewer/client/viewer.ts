// The visitor page's only script: starts the paged viewer (pages rendered by the server, time
// per page) or reports the time on a document shown whole, lets the "waiting for approval" page
// continue by itself, and starts checkouts.
import { startPagedViewer } from './paged-viewer.js';
import { readingTime } from './reading-time.js';

function waitForApproval(waiting: HTMLElement): void {
  const poll = async () => {
    try {
      const response = await fetch(waiting.dataset.statusUrl!, { credentials: 'same-origin', cache: 'no-store' });
      const { step } = (await response.json()) as { step: string };
      if (step !== 'approval-pending') {
        window.location.reload();
        return;
      }
    } catch {
      // offline for a moment: try again on the next tick
    }
    setTimeout(poll, 2000);
  };
  setTimeout(poll, 2000);
}

// CSP form-action 'self' would also refuse the redirect to Stripe's payment page after a
// plain form post, so the checkout URL is fetched as JSON and opened by navigation.
function startCheckoutByScript(form: HTMLFormElement): void {
  const error = document.getElementById('checkout-error');
  const button = form.querySelector('button');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (button) button.disabled = true;
    try {
      const email = (form.elements.namedItem('email') as HTMLInputElement).value;
      const response = await fetch(form.action, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email }),
      });
      const body = (await response.json()) as { url?: string; error?: string };
      if (response.ok && body.url) {
        window.location.assign(body.url);
        return;
      }
      if (error) {
        error.textContent = body.error ?? 'The payment could not be started. Try again.';
        error.hidden = false;
      }
    } catch {
      if (error) {
        error.textContent = 'The payment could not be started. Check your connection and try again.';
        error.hidden = false;
      }
    }
    if (button) button.disabled = false;
  });
}

const pagedViewer = document.getElementById('paged-viewer');
if (pagedViewer) startPagedViewer(pagedViewer);
// A picture, a recording or a file's card: its time is the time on its one page.
const shownWhole = document.querySelector<HTMLElement>('.document[data-track-url]');
if (shownWhole) readingTime(shownWhole.dataset.trackUrl, () => 1);
const checkoutForm = document.getElementById('checkout-form');
if (checkoutForm instanceof HTMLFormElement) startCheckoutByScript(checkoutForm);
const waiting = document.getElementById('waiting');
if (waiting) waitForApproval(waiting);

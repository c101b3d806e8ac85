// The visitor page's only script: renders PDFs with pdf.js, reports time per page,
// and lets the "waiting for approval" page continue by itself.

interface PdfJs {
  GlobalWorkerOptions: { workerSrc: string };
  getDocument(source: object): { promise: Promise<PdfDocument> };
}
interface PdfDocument {
  numPages: number;
  getPage(n: number): Promise<PdfPage>;
}
interface PdfPage {
  getViewport(options: { scale: number }): { width: number; height: number };
  render(options: { canvasContext: CanvasRenderingContext2D; viewport: object }): { promise: Promise<void> };
}

const PDFJS_URL = '/assets/pdfjs/build/pdf.min.mjs';

function trackTime(trackUrl: string, pages: HTMLElement[]): void {
  let current = 1;
  let since = performance.now();
  const report = () => {
    const seconds = Math.round((performance.now() - since) / 1000);
    since = performance.now();
    if (seconds > 0) navigator.sendBeacon(trackUrl, new Blob([JSON.stringify({ page: current, seconds })], { type: 'application/json' }));
  };
  const visible = new Map<number, number>();
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) visible.set(Number((entry.target as HTMLElement).dataset.page), entry.intersectionRatio);
      const [page] = [...visible.entries()].sort((a, b) => b[1] - a[1])[0] ?? [current];
      if (page !== current) {
        report();
        current = page;
      }
    },
    { threshold: [0, 0.25, 0.5, 0.75, 1] },
  );
  pages.forEach((page) => observer.observe(page));
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') report();
    else since = performance.now();
  });
  window.addEventListener('pagehide', report);
}

async function renderPdf(container: HTMLElement): Promise<void> {
  const response = await fetch(container.dataset.contentUrl!, { credentials: 'same-origin' });
  if (!response.ok) {
    container.textContent = 'This document could not be loaded. Reload the page to try again.';
    return;
  }
  const totalPages = response.headers.get('x-total-pages');
  const data = new Uint8Array(await response.arrayBuffer());
  const pdfjs = (await import(/* @vite-ignore */ PDFJS_URL)) as PdfJs;
  pdfjs.GlobalWorkerOptions.workerSrc = '/assets/pdfjs/build/pdf.worker.min.mjs';
  const pdf = await pdfjs.getDocument({ data, isEvalSupported: false, standardFontDataUrl: '/assets/pdfjs/standard_fonts/' }).promise;

  const note = document.getElementById('preview-note');
  if (note && totalPages && Number(totalPages) > pdf.numPages) {
    note.textContent = `Preview: ${pdf.numPages} of ${totalPages} pages`;
    note.hidden = false;
  }
  const canvases: HTMLElement[] = [];
  const width = Math.min(container.clientWidth || 800, 1200) * (window.devicePixelRatio || 1);
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const viewport = page.getViewport({ scale: width / page.getViewport({ scale: 1 }).width });
    const canvas = document.createElement('canvas');
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    canvas.dataset.page = String(n);
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `Page ${n} of ${pdf.numPages}`);
    canvas.tabIndex = 0;
    container.append(canvas);
    canvases.push(canvas);
    await page.render({ canvasContext: canvas.getContext('2d')!, viewport }).promise;
  }
  container.dataset.rendered = String(pdf.numPages);
  if (container.dataset.trackUrl) trackTime(container.dataset.trackUrl, canvases);
}

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

const pdfPages = document.getElementById('pdf-pages');
if (pdfPages) void renderPdf(pdfPages);
const checkoutForm = document.getElementById('checkout-form');
if (checkoutForm instanceof HTMLFormElement) startCheckoutByScript(checkoutForm);
const waiting = document.getElementById('waiting');
if (waiting) waitForApproval(waiting);

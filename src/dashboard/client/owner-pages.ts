// The owner pages' only script: sends their forms to the REST API as JSON, as any API client
// would. Every value from the API is set as text, never as HTML.

const UNREACHABLE = 'linkvault could not be reached. Check your connection and try again.';

function callApi(method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
}

/** The API's own sentence (`{"error": "…"}`), which is written for people. */
async function errorSentence(response: Response): Promise<string> {
  const body = (await response.json().catch(() => null)) as { error?: unknown } | null;
  if (typeof body?.error === 'string' && body.error !== '') return body.error;
  return response.status === 429 ? 'Too many attempts: wait a few minutes and try again.' : 'Something went wrong; try again.';
}

/** The form's fields as the API wants them; a disabled field (the two-factor code not asked for yet) is left out. */
function valuesOf(form: HTMLFormElement): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  for (const element of Array.from(form.elements)) {
    if (!(element instanceof HTMLInputElement || element instanceof HTMLSelectElement)) continue;
    if (!element.name || element.disabled) continue;
    values[element.name] = element.dataset.type === 'integer' ? Number(element.value) : element.value;
  }
  return values;
}

function alertOf(container: Element): HTMLElement | null {
  return container.querySelector<HTMLElement>(':scope > [data-form-error]');
}

function showError(container: Element, sentence: string): void {
  const alert = alertOf(container);
  if (!alert) return;
  alert.textContent = sentence;
  alert.hidden = false;
}

function clearError(container: Element): void {
  const alert = alertOf(container);
  if (!alert) return;
  alert.hidden = true;
  alert.textContent = '';
}

/** After a refusal, the field to fix (data-retry, selected), else the first one to fill. */
function focusAfterError(form: HTMLFormElement): void {
  const retry = form.dataset.retry ? form.querySelector<HTMLInputElement>(`input[name="${form.dataset.retry}"]`) : null;
  const target = retry ?? form.querySelector<HTMLInputElement>('input:not([type="hidden"]):not([readonly]):not([disabled])');
  if (!target) return alertOf(form)?.focus();
  target.focus();
  target.select();
}

/** The API asks for the second factor: show the code field (once) and put the cursor in it. */
function askForSecondFactor(form: HTMLFormElement): boolean {
  const field = form.querySelector<HTMLElement>('[data-two-factor]');
  const input = field?.querySelector('input');
  if (!field || !input || !field.hidden) return false;
  field.hidden = false;
  input.disabled = false;
  input.required = true;
  input.focus();
  return true;
}

/** The form's step gives way to its "done" step, which takes the API's message (a 202's) and the focus. */
async function showDone(form: HTMLFormElement, response: Response): Promise<void> {
  const done = document.getElementById(form.dataset.done ?? '');
  if (!done) return;
  const body = (await response.json().catch(() => null)) as { message?: unknown } | null;
  const slot = done.querySelector('[data-api-message]');
  if (slot && typeof body?.message === 'string') slot.textContent = body.message;
  const step = form.closest<HTMLElement>('[data-step]');
  if (step) step.hidden = true;
  done.hidden = false;
  done.querySelector<HTMLElement>('h1, h2')?.focus();
}

async function send(form: HTMLFormElement): Promise<void> {
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  const busy = (on: boolean) => {
    if (button) button.disabled = on;
    if (on) form.setAttribute('aria-busy', 'true');
    else form.removeAttribute('aria-busy');
  };
  busy(true);
  clearError(form);
  try {
    const response = await callApi('POST', form.dataset.api!, valuesOf(form));
    if (response.ok && form.dataset.next) {
      // Stays busy: the next page is on its way.
      window.location.assign(form.dataset.next);
      return;
    }
    busy(false);
    if (response.ok) return await showDone(form, response);
    if (response.status === 401 && response.headers.get('x-two-factor') === 'required' && askForSecondFactor(form)) return;
    showError(form, await errorSentence(response));
    focusAfterError(form);
  } catch {
    busy(false);
    showError(form, UNREACHABLE);
  }
}

for (const form of Array.from(document.querySelectorAll<HTMLFormElement>('form[data-api]'))) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (form.getAttribute('aria-busy') === null) void send(form);
  });
}

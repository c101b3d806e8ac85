/** A browser-less visitor: follows no redirects, keeps path-scoped cookies like a browser. */
export class VisitorClient {
  private readonly cookies = new Map<string, { name: string; value: string; path: string }>();

  constructor(
    readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  /** The headers this visitor sends with a request for `path`: its own, and the cookies of that path. */
  headersFor(path: string): Record<string, string> {
    const cookie = this.cookieHeader(path.split('?')[0]!);
    return cookie ? { ...this.headers, cookie } : { ...this.headers };
  }

  private cookieHeader(path: string): string {
    return [...this.cookies.values()]
      .filter((cookie) => path === cookie.path || path.startsWith(`${cookie.path}/`))
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }

  private remember(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(';');
      const [name, value] = pair!.split('=');
      const path =
        attributes
          .map((a) => a.trim())
          .find((a) => a.toLowerCase().startsWith('path='))
          ?.slice(5) ?? '/';
      this.cookies.set(`${name}@${path}`, { name: name!.trim(), value: value ?? '', path });
    }
  }

  /** Copies this visitor's cookie for `fromPath` onto `toPath` (to try a session where it does not belong). */
  transplantCookie(fromPath: string, toPath: string): void {
    const cookie = [...this.cookies.values()].find((c) => c.path === fromPath);
    if (cookie) this.cookies.set(`${cookie.name}@${toPath}`, { ...cookie, path: toPath });
  }

  async request(method: string, path: string, form?: Record<string, string> | { json: unknown }, extraHeaders: Record<string, string> = {}) {
    const headers: Record<string, string> = { ...this.headersFor(path), ...extraHeaders };
    let body: string | undefined;
    if (form && 'json' in form) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(form.json);
    } else if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form as Record<string, string>).toString();
    }
    const response = await fetch(this.baseUrl + path, { method, headers, body, redirect: 'manual' });
    this.remember(response);
    const bytes = Buffer.from(await response.arrayBuffer());
    return {
      status: response.status,
      headers: response.headers,
      bytes,
      // Decoded when read: a bench fetching hundreds of page images would spend its CPU on it.
      get text() {
        return bytes.toString('utf8');
      },
    };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, undefined, headers);
  }

  post(path: string, form: Record<string, string>) {
    return this.request('POST', path, form);
  }

  postJson(path: string, json: unknown) {
    return this.request('POST', path, { json });
  }
}

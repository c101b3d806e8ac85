import http from 'node:http';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { Provider } from 'oidc-provider';

/** What the provider says of a person; the test decides it per person. */
export interface ProviderClaims {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

/**
 * A real OpenID provider (oidc-provider) on a random loopback port, with one confidential
 * client whose PKCE is required, and the provider's own development login and consent pages.
 * People are whoever the test registers with `person`; the login page takes their `sub`. As
 * the spec says, e-mail claims come from UserInfo unless `emailInIdToken`.
 */
export async function startOidcProvider(t: TestContext, options: { redirectUri: string; emailInIdToken?: boolean }) {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    await new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'linkvault-test';
  const clientSecret = randomBytes(24).toString('base64url');
  const people = new Map<string, ProviderClaims>();
  const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256',
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_context, sub) => {
      const claims = people.get(sub);
      return claims && { accountId: sub, claims: () => ({ sub, ...claims }) };
    },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    jwks: { keys: [{ ...signingKey, alg: 'ES256', use: 'sig' }] },
    features: { devInteractions: { enabled: true } },
    conformIdTokenClaims: !options.emailInIdToken,
  });
  server.on('request', provider.callback());

  let registered = 0;
  return {
    issuer,
    /** The app's environment for this provider. */
    env: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret },
    /** Registers a person; answers the login to type on the provider's page. */
    person(claims: ProviderClaims): string {
      const sub = `person-${++registered}`;
      people.set(sub, claims);
      return sub;
    },
  };
}

interface Page {
  url: string;
  status: number;
  /** the absolute URL of a redirect */
  location: string | undefined;
  setCookies: string[];
  text: string;
}

const MAX_COOKIES_PER_HOST = 50;

/**
 * A browser without a window: follows nothing by itself, keeps cookies by host as browsers do
 * (the port does not separate them) and honours Path and Max-Age; bounded in cookies.
 */
export function createCookieBrowser() {
  const jar = new Map<string, Map<string, { value: string; path: string }>>();

  function remember(url: URL, setCookie: string) {
    const [pair = '', ...attributes] = setCookie.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const attribute = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
    const cookies = jar.get(url.hostname) ?? new Map<string, { value: string; path: string }>();
    jar.set(url.hostname, cookies);
    const expired = attribute('max-age') === '0' || (attribute('expires') !== undefined && Date.parse(attribute('expires')!) <= Date.now());
    if (expired || value === '') cookies.delete(name);
    else cookies.set(name, { value, path: attribute('path') ?? '/' });
    if (cookies.size > MAX_COOKIES_PER_HOST) throw new Error(`more than ${MAX_COOKIES_PER_HOST} cookies for ${url.hostname}`);
  }

  function cookieHeader(url: URL): string {
    const cookies = [...(jar.get(url.hostname) ?? [])].filter(([, cookie]) => url.pathname.startsWith(cookie.path));
    return cookies.map(([name, cookie]) => `${name}=${cookie.value}`).join('; ');
  }

  async function request(method: 'GET' | 'POST', target: string, form?: Record<string, string>): Promise<Page> {
    const url = new URL(target);
    const headers: Record<string, string> = { cookie: cookieHeader(url) };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, {
      method,
      headers,
      body: form && new URLSearchParams(form).toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    const setCookies = response.headers.getSetCookie();
    for (const setCookie of setCookies) remember(url, setCookie);
    const location = response.headers.get('location');
    return {
      url: url.href,
      status: response.status,
      location: location === null ? undefined : new URL(location, url).href,
      setCookies,
      text: await response.text(),
    };
  }

  return {
    get: (url: string) => request('GET', url),
    post: (url: string, form: Record<string, string>) => request('POST', url, form),
    /** The value this browser holds for a cookie of a host. */
    cookie: (host: string, name: string) => jar.get(host)?.get(name)?.value,
    /** Forgets a cookie, as another browser would not have it. */
    forget: (host: string, name: string) => jar.get(host)?.delete(name),
  };
}

export type CookieBrowser = ReturnType<typeof createCookieBrowser>;

const MAX_STEPS = 12;

/**
 * Starts single sign-on at the app and goes through the provider's login (as `login`) and
 * consent pages; answers the callback URL the provider sends the browser back to, not yet opened.
 */
export async function throughProvider(browser: CookieBrowser, appUrl: string, login: string, start = '/auth/oidc/start'): Promise<string> {
  let page = await browser.get(`${appUrl}${start}`);
  for (let step = 0; step < MAX_STEPS; step++) {
    if (page.location?.startsWith(`${appUrl}/auth/oidc/callback`)) return page.location;
    if (page.location !== undefined) {
      page = await browser.get(page.location);
      continue;
    }
    const prompt = /name="prompt" value="(login|consent)"/.exec(page.text)?.[1];
    if (page.status !== 200 || prompt === undefined) throw new Error(`unexpected ${page.status} at ${page.url}: ${page.text.slice(0, 300)}`);
    page = await browser.post(page.url, prompt === 'login' ? { prompt, login, password: 'any password' } : { prompt });
  }
  throw new Error(`the provider did not send the browser back within ${MAX_STEPS} steps`);
}

import type * as OpenIdClient from 'openid-client';
import type { Role } from '../../core/permissions.js';
import { dashboardPath } from '../../core/web/dashboard-path.js';
import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { seal, unseal } from '../../infra/crypto/sealed.js';
import { safeEqual } from '../../infra/crypto/tokens.js';
import type { AccountRecords } from '../accounts/account-records.js';
import type { AuditLog } from '../audit/audit.service.js';
import type { InvitationsService } from '../members/invitations.service.js';
import type { MembersService } from '../members/members.service.js';
import type { Client } from '../sessions/sessions.service.js';
import { normalizeEmail, type UsersService } from '../users/users.service.js';
import type { AuthService, SignedIn } from './auth.service.js';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Verified e-mails of these domains join the first account as members. */
  autoJoinDomains: string[];
}

/** How long a browser has to come back from the provider. */
export const FLOW_TTL_SECONDS = 600;
const FLOW_CONTEXT = 'oidc.sign_in_flow';
const NAME_MAX = 100;

/** What `/sign-in?error=<code>` names when single sign-on does not end in a session. */
export type RefusalCode = 'oidc_state' | 'oidc_failed' | 'oidc_unverified' | 'oidc_no_account' | 'oidc_disabled';

/** A sign-in that ends on the sign-in page; `message` is for the log and the audit log, never for the browser. */
export class SingleSignOnRefused extends Error {
  override name = 'SingleSignOnRefused';

  constructor(
    readonly code: RefusalCode,
    message: string,
  ) {
    super(message);
  }
}

/** The browser's part of a sign-in under way, sealed into its cookie: no server keeps it, so any replica finishes it. */
interface Flow {
  verifier: string;
  state: string;
  nonce: string;
  expiresAt: number;
  /** The dashboard screen to go on to once signed in (`dashboardPath`); absent in a flow begun before it was kept. */
  next?: string;
}

interface Person {
  email: string | undefined;
  emailVerified: boolean;
  name: string;
}

interface Admission {
  accountId: number;
  role: Role;
  action: 'invitation.accepted' | 'member.added';
}

function displayName(claims: Record<string, unknown>, email: string | undefined): string {
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
  const fullName = [text(claims.given_name), text(claims.family_name)].join(' ').trim();
  const candidates = [text(claims.name), fullName, text(claims.preferred_username), email?.split('@')[0] ?? ''];
  return (candidates.find((candidate) => candidate !== '') ?? 'Single sign-on user').slice(0, NAME_MAX);
}

/**
 * OpenID Connect single sign-on: the authorization code flow with PKCE (S256), state and nonce
 * (openid-client, loaded by runtime.ts only when SSO is configured), and who may come in: a
 * verified e-mail of a person, of a pending invitation, or of an auto-join domain.
 */
export function createOidcService(deps: {
  db: Db;
  clock: Clock;
  masterKey: Buffer;
  publicUrl: string;
  settings: OidcSettings;
  openid: typeof OpenIdClient;
  auth: Pick<AuthService, 'signInVerified' | 'recordSignInFailure'>;
  users: Pick<UsersService, 'byEmail' | 'create'>;
  members: Pick<MembersService, 'join' | 'accountsOf'>;
  invitations: Pick<InvitationsService, 'claimForEmail'>;
  accounts: Pick<AccountRecords, 'firstId'>;
  audit: AuditLog;
}) {
  const { db, clock, masterKey, settings, openid, auth, users, members, invitations, accounts, audit } = deps;
  const redirectUri = `${deps.publicUrl}/auth/oidc/callback`;
  const issuer = new URL(settings.issuer);
  let discovered: Promise<OpenIdClient.Configuration> | undefined;

  /**
   * The provider's metadata, fetched at the first sign-in rather than at start (a provider that
   * is down must not keep linkvault from starting), and again after a failure. An http issuer is
   * the operator's explicit choice (a provider on loopback or a private network).
   */
  function provider(): Promise<OpenIdClient.Configuration> {
    discovered ??= openid
      .discovery(issuer, settings.clientId, undefined, openid.ClientSecretBasic(settings.clientSecret), {
        execute: issuer.protocol === 'http:' ? [openid.allowInsecureRequests] : [],
        timeout: 10,
      })
      .catch((error: unknown) => {
        discovered = undefined;
        throw error;
      });
    return discovered;
  }

  /** Any failure talking to the provider (unreachable, refused code, bad ID token or nonce) ends the same way. */
  async function withProvider<T>(step: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw new SingleSignOnRefused('oidc_failed', `${step}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  function openFlow(sealed: string | undefined): Flow {
    if (sealed === undefined) throw new SingleSignOnRefused('oidc_state', 'no sign-in under way in this browser');
    let flow: Flow;
    try {
      flow = JSON.parse(unseal(masterKey, sealed, FLOW_CONTEXT)) as Flow;
    } catch {
      throw new SingleSignOnRefused('oidc_state', 'the sign-in cookie was altered');
    }
    if (flow.expiresAt <= clock()) throw new SingleSignOnRefused('oidc_state', 'the sign-in took longer than ten minutes');
    return flow;
  }

  /** Exchanges the code and reads who the provider says the person is. */
  async function identify(callbackQuery: string, flow: Flow): Promise<Person> {
    const configuration = await provider();
    const tokens = await openid.authorizationCodeGrant(configuration, new URL(`${redirectUri}${callbackQuery}`), {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims()!;
    // A provider may leave the e-mail out of the ID token and give it at UserInfo (OIDC Core 5.4;
    // oidc-provider does by default): it is asked there, for the ID token's own subject.
    const claims: Record<string, unknown> =
      typeof idToken.email === 'string' ? idToken : await openid.fetchUserInfo(configuration, tokens.access_token, idToken.sub);
    const email = typeof claims.email === 'string' ? normalizeEmail(claims.email) : undefined;
    return { email, emailVerified: claims.email_verified === true, name: displayName(claims, email) };
  }

  /** Where a person without a way into any account may come in: their pending invitation, else their domain. */
  async function admissionFor(email: string, isNewPerson: boolean, executor: Executor): Promise<Admission | null> {
    const invitation = await invitations.claimForEmail(email, executor);
    if (invitation) return { accountId: invitation.accountId, role: invitation.role, action: 'invitation.accepted' };
    // Only for people new to linkvault: someone removed from every account does not walk back in.
    if (!isNewPerson || !settings.autoJoinDomains.includes(email.slice(email.lastIndexOf('@') + 1))) return null;
    const accountId = await accounts.firstId(executor);
    return accountId === undefined ? null : { accountId, role: 'member', action: 'member.added' };
  }

  /** The person of a verified e-mail signs in, joining an account first when they belong to none. */
  function admit(person: Person & { email: string }, client: Client): Promise<SignedIn> {
    const { email, name } = person;
    return db.transaction().execute(async (trx) => {
      const existing = await users.byEmail(email, trx);
      if (existing && existing.disabled_at !== null) throw new SingleSignOnRefused('oidc_disabled', 'single sign-on: the person is disabled');
      if (existing && (await members.accountsOf(existing.id, trx)).length > 0) return auth.signInVerified(existing, client, trx);
      const admission = await admissionFor(email, existing === undefined, trx);
      if (!admission) throw new SingleSignOnRefused('oidc_no_account', 'single sign-on: no invitation or auto-join domain for this e-mail');
      const userId = existing?.id ?? (await users.create({ email, name, password: null }, trx));
      const role = await members.join(userId, admission.accountId, admission.role, trx);
      await audit.record(
        { accountId: admission.accountId, actor: { type: 'user', id: userId, label: email }, ip: client.ip },
        { action: admission.action, target: { type: 'user', id: userId }, details: { email, role, method: 'oidc' } },
        trx,
      );
      return auth.signInVerified({ id: userId, email }, client, trx);
    });
  }

  return {
    /** The provider's authorization URL, and the sealed flow the browser keeps until it comes back. */
    async begin(next?: string): Promise<{ authorizationUrl: string; flow: string }> {
      const configuration = await withProvider('discovery', provider);
      const flow: Flow = {
        verifier: openid.randomPKCECodeVerifier(),
        state: openid.randomState(),
        nonce: openid.randomNonce(),
        expiresAt: clock() + FLOW_TTL_SECONDS * 1000,
        next: dashboardPath(next),
      };
      const authorizationUrl = openid.buildAuthorizationUrl(configuration, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        code_challenge: await openid.calculatePKCECodeChallenge(flow.verifier),
        code_challenge_method: 'S256',
        state: flow.state,
        nonce: flow.nonce,
      });
      return { authorizationUrl: authorizationUrl.href, flow: seal(masterKey, JSON.stringify(flow), FLOW_CONTEXT) };
    },

    /**
     * The browser is back from the provider with `callbackQuery` (`?code=…&state=…`, as received)
     * and its sealed flow. Throws SingleSignOnRefused for every way this ends without a session;
     * `next` is the dashboard screen the sign-in was begun for.
     */
    async complete(callbackQuery: string, sealedFlow: string | undefined, client: Client): Promise<SignedIn & { next: string }> {
      const flow = openFlow(sealedFlow);
      const answer = new URLSearchParams(callbackQuery);
      if (!safeEqual(answer.get('state') ?? '', flow.state)) {
        throw new SingleSignOnRefused('oidc_state', "the state does not match this browser's sign-in");
      }
      const providerError = answer.get('error');
      if (providerError !== null) throw new SingleSignOnRefused('oidc_failed', `the provider answered ${providerError.slice(0, 100)}`);
      const person = await withProvider('code exchange', () => identify(callbackQuery, flow));
      const { email } = person;
      if (email === undefined) throw new SingleSignOnRefused('oidc_unverified', 'the provider gave no e-mail');
      try {
        if (!person.emailVerified) throw new SingleSignOnRefused('oidc_unverified', 'single sign-on: the provider did not verify the e-mail');
        return { ...(await admit({ ...person, email }, client)), next: dashboardPath(flow.next) };
      } catch (error) {
        if (error instanceof SingleSignOnRefused) await auth.recordSignInFailure(email, client, error.message);
        throw error;
      }
    },
  };
}

export type OidcService = ReturnType<typeof createOidcService>;

// oidc-provider 9 ships no types; only what test/helpers/oidc-provider.ts uses is declared.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account {
    accountId: string;
    claims(): Record<string, unknown>;
  }

  interface Configuration {
    clients?: Record<string, unknown>[];
    pkce?: { required?: () => boolean };
    claims?: Record<string, string[]>;
    findAccount?: (context: unknown, sub: string) => Account | undefined;
    cookies?: { keys?: string[] };
    jwks?: { keys: object[] };
    features?: Record<string, { enabled: boolean }>;
    conformIdTokenClaims?: boolean;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
}

// mailparser 3.9 ships no types; only what the mail tests use is declared.
declare module 'mailparser' {
  import type { Readable } from 'node:stream';

  interface AddressObject {
    value: { address?: string; name: string }[];
    text: string;
  }

  interface ParsedMail {
    subject?: string;
    text?: string;
    html: string | false;
    from?: AddressObject;
    to?: AddressObject | AddressObject[];
    messageId?: string;
  }

  export function simpleParser(source: Buffer | string | Readable): Promise<ParsedMail>;
}

import type { TestContext } from 'node:test';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  from: string | undefined;
  /** the From header's display name, as a mail client shows it */
  fromName: string | undefined;
  subject: string;
  text: string;
  html: string | false;
}

/** A real SMTP server on loopback that keeps what it receives, and the credentials it was given; closed after the test. */
export async function startSmtp(t: TestContext) {
  const received: ReceivedMail[] = [];
  const logins: Array<{ username: string | undefined; password: string | null | undefined }> = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username, password: auth.password });
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          received.push({
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            from: parsed.from?.value[0]?.address,
            fromName: parsed.from?.value[0]?.name,
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: parsed.html,
          });
          waiters.splice(0).forEach((wake) => wake());
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    logins,
    /** The first message to `address` matching `predicate`, waiting for it up to 10 s. */
    async waitFor(address: string, predicate: (mail: ReceivedMail) => boolean = () => true): Promise<ReceivedMail> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const mail = received.find((m) => m.to.includes(address) && predicate(m));
        if (mail) return mail;
        if (Date.now() > deadline) throw new Error(`no mail to ${address} within 10 s (got ${received.length})`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 250);
        });
      }
    },
  };
}

/** The 6-digit code in an OTP mail. */
export function otpCodeIn(mail: ReceivedMail): string {
  const match = /\b(\d{6})\b/.exec(mail.text);
  if (!match) throw new Error(`no code in: ${mail.text}`);
  return match[1]!;
}

import type { TestContext } from 'node:test';
import { createJobRunner, type JobRunnerDeps } from '../../src/infra/jobs/index.js';
import { createMailer, MAIL_JOB, type MailerDeps } from '../../src/infra/mail/index.js';

/** A mailer whose messages a job runner of its own sends, wired as the runtime wires them; both stop after the test. */
export function mailerOnJobRunner(t: TestContext, deps: Omit<MailerDeps, 'jobs'>, runner: Partial<JobRunnerDeps> = {}) {
  const jobs = createJobRunner({ db: deps.db, clock: deps.clock, log: deps.log, ...runner });
  const mailer = createMailer({ ...deps, jobs });
  jobs.register(MAIL_JOB, mailer.job);
  t.after(async () => {
    await jobs.stop();
    mailer.close();
  });
  return { mailer, jobs };
}

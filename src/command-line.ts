import { parseArgs } from 'node:util';
import { CommandError } from './cli/command-error.js';
import { assertNoInterruptedRestore } from './cli/restore-marker.js';
import { ConfigError, dataDirOf, loadConfig, type Config } from './config.js';
import { AppError } from './core/errors.js';
import { DatabaseUnreachableError } from './db/executor.js';
import { isRole, ROLES, type Role } from './core/permissions.js';
import { isPlan, PLANS, type Plan } from './core/plans.js';
import { ACCOUNT_FILES_JOB } from './modules/accounts/account-closure.service.js';
import { commandLineSource } from './modules/audit/audit.service.js';
import { createRuntime, type Runtime } from './runtime.js';

const USAGE = `usage: linkvault <command>
  serve                                              start the server (default)
  migrate                                            apply database migrations
  accounts create --email E --plan ${PLANS.join('|')} [--name N]
  accounts set-plan --email E --plan P
  accounts delete --email E --yes                    delete an account and everything in it, files too; cannot be undone
  keys create --email E --name N
  setup-link                                         print a fresh link that creates the first owner
  users create --email E --account-email A --role owner|admin|member [--name N]
                                                     add a person to an account; prints a one-time sign-in link (a day)
  users reset-2fa --email E                          turn off a person's two-factor sign-in and recovery codes (a lost phone)
  backup --to DIR [--include-master-key]             copy the database and the blobs into a new, empty DIR
  restore --from DIR [--accept-unsigned]             restore a backup into an empty DATA_DIR and database;
                                                     --accept-unsigned: also one made before backups were signed
  doctor [--json]                                    check configuration, database, storage, mail, Redis, key
  sweep                                              delete now the link files no link points at (older than an hour), as the hourly sweep does`;

class UsageError extends Error {}

function option(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function planOption(values: Record<string, string | boolean | undefined>): Plan {
  const plan = option(values, 'plan');
  if (!isPlan(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  return plan;
}

/** Why the server cannot listen on HOST and PORT, in one sentence saying what to change; undefined for any other failure. */
function listenRefusal(error: unknown, { host, port }: Config): CommandError | undefined {
  const where = `cannot listen on ${host} port ${port}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new CommandError(`${where}: another process uses that port; stop it or set another PORT`);
    case 'EADDRNOTAVAIL':
      return new CommandError(`${where}: no network interface of this machine has that address; set HOST to one of its addresses, or 0.0.0.0`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new CommandError(`${where}: the host name does not resolve; set HOST to an address of this machine, or 0.0.0.0`);
    case 'EACCES':
      return new CommandError(`${where}: this user may not open that port; set a PORT above 1023 and let a proxy take port 80 or 443`);
  }
  return undefined;
}

async function serve(runtime: Runtime): Promise<void> {
  // The HTTP layer (Fastify plugins, routes, OpenAPI) loads for `serve` only: one-shot commands skip it.
  const { buildApp } = await import('./app.js');
  const app = await buildApp(runtime);
  runtime.startBackgroundWork();
  const { stopGracefully } = await import('./shutdown.js');
  stopGracefully(app, runtime);
  try {
    await app.listen({ port: runtime.config.port, host: runtime.config.host });
  } catch (error) {
    throw listenRefusal(error, runtime.config) ?? error;
  }
  // A fresh install has nobody to sign in: the operator opens this once (DESIGN §8, first run).
  if (await runtime.services.auth.needsSetup()) runtime.log.info(`Create the first owner: ${await runtime.services.auth.setupLink()}`);
}

function roleOption(values: Record<string, string | boolean | undefined>): Role {
  const role = option(values, 'role');
  if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return role;
}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      plan: { type: 'string' },
      name: { type: 'string' },
      to: { type: 'string' },
      from: { type: 'string' },
      'include-master-key': { type: 'boolean' },
      'accept-unsigned': { type: 'boolean' },
      'account-email': { type: 'string' },
      role: { type: 'string' },
      json: { type: 'boolean' },
      yes: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const command = positionals.join(' ') || 'serve';
  const known = [
    'serve',
    'migrate',
    'accounts create',
    'accounts set-plan',
    'accounts delete',
    'keys create',
    'setup-link',
    'users create',
    'users reset-2fa',
    'backup',
    'restore',
    'doctor',
    'sweep',
  ];
  if (!known.includes(command)) throw new UsageError(`unknown command "${command}"`);

  if (command !== 'restore') assertNoInterruptedRestore(dataDirOf(process.env));

  // Maintenance commands build only what they check or copy: a restore needs an empty database
  // (the runtime would migrate it), and the doctor must report a dead dependency, not stop on it.
  switch (command) {
    case 'doctor':
      process.exitCode = await (await import('./cli/doctor.js')).doctor(process.env, { json: values.json === true });
      return;
    case 'backup':
      return (await import('./cli/backup.js')).backup(loadConfig(), {
        to: option(values, 'to'),
        includeMasterKey: values['include-master-key'] === true,
      });
    case 'restore':
      return (await import('./cli/restore.js')).restore(loadConfig(), {
        from: option(values, 'from'),
        acceptUnsigned: values['accept-unsigned'] === true,
      });
  }

  const runtime = await createRuntime(loadConfig());
  if (command === 'serve') return serve(runtime);
  try {
    const { accounts, apiKeys } = runtime.services;
    switch (command) {
      case 'migrate':
        console.log(JSON.stringify({ ok: true }));
        break;
      case 'sweep':
        console.log(JSON.stringify({ orphanBlobs: await runtime.orphanSweeper.sweep() }));
        break;
      case 'accounts create': {
        const name = typeof values.name === 'string' ? values.name : undefined;
        console.log(JSON.stringify(await accounts.create({ email: option(values, 'email'), plan: planOption(values), name })));
        break;
      }
      case 'accounts set-plan':
        await accounts.setPlan(option(values, 'email'), planOption(values));
        console.log(JSON.stringify({ ok: true }));
        break;
      case 'accounts delete': {
        if (values.yes !== true) throw new UsageError('deleting an account cannot be undone: add --yes');
        const accountId = await accounts.idByEmail(option(values, 'email'));
        const { files } = await runtime.services.accountClosure.closeByOperator(accountId);
        // No server may be running: the files go now, not when one next starts.
        await runtime.jobs.drain(ACCOUNT_FILES_JOB);
        console.log(JSON.stringify({ ok: true, files }));
        break;
      }
      case 'setup-link':
        console.log(await runtime.services.auth.setupLink());
        break;
      case 'users create': {
        const name = typeof values.name === 'string' ? values.name : undefined;
        const added = await runtime.services.auth.addPersonByOperator({
          email: option(values, 'email'),
          name,
          accountEmail: option(values, 'account-email'),
          role: roleOption(values),
        });
        console.log(JSON.stringify(added));
        break;
      }
      case 'users reset-2fa':
        await runtime.services.twoFactor.resetByOperator(option(values, 'email'));
        console.log(JSON.stringify({ ok: true }));
        break;
      case 'keys create': {
        const accountId = await accounts.idByEmail(option(values, 'email'));
        const { key } = await apiKeys.create(commandLineSource(accountId), option(values, 'name'));
        console.log(JSON.stringify({ apiKey: key }));
        break;
      }
    }
  } finally {
    await runtime.close();
  }
}

/** What the operator can do about a file system refusal, by its code; others keep their stack trace. */
const FILE_SYSTEM_REFUSALS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'part of that path is a file, not a folder',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space is left on the device',
};

function fileSystemRefusal(error: unknown): string | undefined {
  const { code, path: file } = error as NodeJS.ErrnoException;
  const reason = code === undefined ? undefined : FILE_SYSTEM_REFUSALS[code];
  if (reason === undefined || file === undefined) return undefined;
  return `cannot use ${file}: ${reason}; DATA_DIR (${dataDirOf(process.env)}) must be a folder that the user running linkvault may write`;
}

run(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) console.error(`linkvault: ${error.message}\n${USAGE}`);
  else if (fileSystemRefusal(error)) console.error(`linkvault: ${fileSystemRefusal(error)}`);
  else if (error instanceof ConfigError || error instanceof AppError || error instanceof CommandError) console.error(`linkvault: ${error.message}`);
  else if (error instanceof DatabaseUnreachableError)
    console.error(`linkvault: ${error.message}; check DATABASE_URL and that PostgreSQL runs and is reachable from here`);
  else if (error instanceof TypeError && (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    console.error(`linkvault: ${error.message}\n${USAGE}`);
  } else console.error('linkvault:', error);
  process.exit(1);
});

import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * How LibreOffice is kept from fetching what an uploaded document links to (an image at an
 * internal address, a cloud metadata endpoint, a file on this machine) while it converts it: a
 * document's own content is all it may draw.
 *
 * Two layers. Its profile always sends every HTTP, HTTPS and FTP request through a proxy whose
 * name can never resolve (`.invalid`, RFC 6761), so nothing leaves; and where the kernel lets
 * us, it also runs in a network namespace of its own, which has no interface but a loopback
 * that is down: `unshare --user --map-root-user --net` as anyone, or `unshare --net` as root
 * with the capability. Neither is available in some containers (a default seccomp profile
 * refuses new namespaces); the profile then stands alone.
 */
export interface NetworkIsolation {
  kind: 'user-namespace' | 'namespace' | 'none';
  /** What the command line starts with: `unshare` and its options, or nothing. */
  prefix: readonly string[];
  /** The user id LibreOffice runs as, which names its IPC socket: 0 inside a user namespace. */
  uid: number;
}

const NAMESPACES: ReadonlyArray<Pick<NetworkIsolation, 'kind' | 'prefix'>> = [
  { kind: 'user-namespace', prefix: ['unshare', '--user', '--map-root-user', '--net', '--'] },
  { kind: 'namespace', prefix: ['unshare', '--net', '--'] },
];

/** The first way to start a program without a network that works on this machine. */
export async function probeNetworkIsolation(env: NodeJS.ProcessEnv): Promise<NetworkIsolation> {
  for (const candidate of NAMESPACES) {
    if (await runsTrue([...candidate.prefix, 'true'], env)) {
      return { ...candidate, uid: candidate.kind === 'user-namespace' ? 0 : (process.getuid?.() ?? 0) };
    }
  }
  return { kind: 'none', prefix: [], uid: process.getuid?.() ?? 0 };
}

function runsTrue([command, ...args]: string[], env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command!, args, { stdio: 'ignore', env, timeout: 5000 });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}

const UNREACHABLE_PROXY = 'proxy.invalid';
const PROXY_SETTINGS: ReadonlyArray<[name: string, value: string | number]> = [
  // 2: the proxies named here, for every address (no exceptions below).
  ['ooInetProxyType', 2],
  ['ooInetHTTPProxyName', UNREACHABLE_PROXY],
  ['ooInetHTTPProxyPort', 9],
  ['ooInetHTTPSProxyName', UNREACHABLE_PROXY],
  ['ooInetHTTPSProxyPort', 9],
  ['ooInetFTPProxyName', UNREACHABLE_PROXY],
  ['ooInetFTPProxyPort', 9],
  ['ooInetNoProxy', ''],
];

/**
 * What a document may not reach on this machine either. A picture or PDF it links by a `file:` URL
 * (an ODT frame, a DOCX relationship of TargetMode External) would be read from the server's disk
 * and drawn into its pages: LibreOffice loads linked content only from trusted locations, and this
 * profile trusts none. Macros never run.
 */
const SECURITY_SETTINGS: ReadonlyArray<[name: string, value: string | number | boolean]> = [
  ['BlockUntrustedRefererLinks', true],
  ['DisableMacrosExecution', true],
  ['MacroSecurityLevel', 3],
];

const item = (at: string, [name, value]: readonly [string, string | number | boolean]) =>
  `<item oor:path="${at}"><prop oor:name="${name}" oor:op="fuse"><value>${value}</value></prop></item>`;

/** Seeds a new LibreOffice profile folder with the settings that send its requests nowhere and keep it to the document's own content. */
export async function writeOfflineProfile(profileDir: string): Promise<void> {
  const items = [
    ...PROXY_SETTINGS.map((setting) => item('/org.openoffice.Inet/Settings', setting)),
    ...SECURITY_SETTINGS.map((setting) => item('/org.openoffice.Office.Common/Security/Scripting', setting)),
  ];
  const xml = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    ...items,
    '</oor:items>',
    '',
  ].join('\n');
  await mkdir(path.join(profileDir, 'user'), { recursive: true, mode: 0o700 });
  await writeFile(path.join(profileDir, 'user', 'registrymodifications.xcu'), xml, { mode: 0o600 });
}

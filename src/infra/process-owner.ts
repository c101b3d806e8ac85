import os from 'node:os';

/**
 * What names the files and folders a process leaves behind, `<pid>@<host>`, so that a later start
 * can tell those of a process that is gone (a crash) from those of one still at work, here or on
 * another machine sharing the folder.
 */
export const processOwner = () => `${process.pid}@${os.hostname()}`;

/** The pid and host of an owner as `processOwner` writes it. */
const OWNER = /^(\d+)@(.+)$/;

/** Is `pid` a running process of this machine? (EPERM: it runs, as another user.) */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `owner` names a process of this machine that is gone: never this one, another machine's, or a name that is no owner. */
export function isGoneOwner(owner: string): boolean {
  const match = OWNER.exec(owner);
  if (!match || match[2] !== os.hostname()) return false;
  const pid = Number(match[1]);
  return pid !== process.pid && !isRunning(pid);
}

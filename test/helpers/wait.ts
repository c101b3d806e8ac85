export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 100 ms for at most `ms` until `done` says so; resolves with its last answer. */
export async function waitFor<T>(check: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await check();
  while (!done(value) && Date.now() < deadline) {
    await sleep(100);
    value = await check();
  }
  return value;
}

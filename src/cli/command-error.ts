/** A CLI command refused or failed for a reason the operator can act on: printed as one line, exit code 1. */
export class CommandError extends Error {
  override name = 'CommandError';
}

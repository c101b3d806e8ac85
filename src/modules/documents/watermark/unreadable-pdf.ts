import { AppError } from '../../../core/errors.js';

/** A damaged or encrypted PDF: it cannot be cut or stamped, so it cannot be shown marked. */
export class UnreadablePdfError extends AppError {
  override name = 'UnreadablePdfError';

  constructor(
    readonly reason: 'encrypted' | 'damaged',
    options?: { cause?: unknown },
  ) {
    super(
      422,
      reason === 'encrypted'
        ? 'This PDF is encrypted, so it cannot be watermarked or previewed'
        : 'This PDF could not be read, so it cannot be watermarked or previewed',
    );
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

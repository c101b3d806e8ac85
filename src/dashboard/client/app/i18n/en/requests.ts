/** The requests screens' words. */
export const requests = {} as const;

/** The link screens' words (settings, analytics). */
export const link = {} as const;

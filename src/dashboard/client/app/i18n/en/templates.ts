/** The templates screens' words. */
export const templates = {} as const;

/** The analytics screens' words. */
export const analytics = {} as const;

/** The settings screens' words. */
export const settings = {} as const;

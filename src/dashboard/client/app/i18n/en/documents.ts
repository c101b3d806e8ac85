/** The documents screens' words. */
export const documents = {} as const;

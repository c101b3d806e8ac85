/** The rooms screens' words. */
export const rooms = {} as const;

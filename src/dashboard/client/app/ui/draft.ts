import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A form's draft of values kept on the server. The draft starts again from the server only when
 * the server's values change to something this form has not seen: the refetch that follows the
 * form's own save must not undo an edit made while it was on its way, and another form's save
 * must not wipe what is being typed here. Call `saved` with the values the save's answer holds.
 */
export function useDraft<D>(server: D) {
  const serverKey = JSON.stringify(server);
  const [draft, setDraft] = useState(server);
  const known = useRef(serverKey);
  useEffect(() => {
    if (serverKey === known.current) return;
    known.current = serverKey;
    setDraft(server);
  }, [serverKey]);
  return {
    draft,
    setDraft,
    set: (change: Partial<D>) => setDraft((current) => ({ ...current, ...change })),
    saved: (values: D) => {
      known.current = JSON.stringify(values);
    },
  };
}

/**
 * The fields of `change` whose value differs from `loaded`'s (both as the form sends them): what
 * the person changed. A field left alone is not sent, so a save never puts back a value someone
 * else changed meanwhile, nor writes back a value the form shows rounded.
 */
export function changedFields<C extends object>(change: C, loaded: C): Partial<C> {
  const entries = Object.entries(change).filter(([field, value]) => JSON.stringify(value) !== JSON.stringify(loaded[field as keyof C]));
  return Object.fromEntries(entries) as Partial<C>;
}

/**
 * An address as people type it: a dot-atom of RFC 5322's printable ASCII before the @ (no colon,
 * bracket or space, no character outside ASCII), a host name after it. Visitors and new people
 * (invited, signing up) type these, every mail server takes them, and owners read them back in alerts, chat messages and exports: a local part such as
 * `https://evil.example/x?` or one carrying a right-to-left mark would read as something else there.
 */
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_\x60{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_\x60{|}~-]+)*@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

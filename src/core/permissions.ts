import { forbidden } from './errors.js';

export const ROLES = ['member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** A role read from the database; anything unknown has the least rights. */
export function roleOf(value: string): Role {
  return isRole(value) ? value : 'member';
}

/**
 * The one permission table: each area of the product and the least role that may act in it.
 * A route names its area in its options (`config.area`, default `content`) and the API guard
 * checks it; a service checks the areas that depend on the target (changing an owner).
 */
export const MINIMUM_ROLE = {
  /** links, uploads, rooms, portals, templates, access requests, analytics, one's own profile */
  content: 'member',
  'api-keys': 'admin',
  integrations: 'admin',
  webhooks: 'admin',
  branding: 'admin',
  /** the account-wide block list and view alert mode (reading them is content) */
  'sharing-policy': 'admin',
  payments: 'admin',
  members: 'admin',
  'audit-log': 'admin',
  /** making, changing or removing an owner */
  owners: 'owner',
  /** the account itself: its name and address */
  account: 'owner',
} as const satisfies Record<string, Role>;

export type Area = keyof typeof MINIMUM_ROLE;

const AREA_NAMES: Record<Area, string> = {
  content: 'this',
  'api-keys': 'API keys',
  integrations: 'integrations',
  webhooks: 'webhooks',
  branding: 'branding and mail settings',
  'sharing-policy': "the account's block list and view alerts",
  payments: 'payments',
  members: 'members and invitations',
  'audit-log': 'the audit log',
  owners: 'owners',
  account: 'the account itself',
};

export function roleAtLeast(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

export function mayAct(role: Role, area: Area): boolean {
  return roleAtLeast(role, MINIMUM_ROLE[area]);
}

/**
 * 403 with a sentence naming the role needed, e.g. "Managing API keys needs the admin role; you
 * are a member"; `action` names what was refused where the area alone would not say why
 * ("Revoking a key that acts as an owner").
 */
export function assertMayAct(role: Role, area: Area, action = `Managing ${AREA_NAMES[area]}`): void {
  if (mayAct(role, area)) return;
  const needed = MINIMUM_ROLE[area];
  throw forbidden(
    `${action} needs the ${needed} role${needed === 'owner' ? '' : ' or higher'}; you are ${role === 'admin' ? 'an' : 'a'} ${role} of this account`,
  );
}

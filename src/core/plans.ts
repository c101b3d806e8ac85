import { forbidden } from './errors.js';
import type { Area } from './permissions.js';

export const PLANS = ['free', 'professional', 'business'] as const;
export type Plan = (typeof PLANS)[number];

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

export function planAtLeast(actual: string, required: Plan): boolean {
  return PLANS.indexOf(actual as Plan) >= PLANS.indexOf(required);
}

export function assertPlanAtLeast(actual: string, required: Plan): void {
  if (!planAtLeast(actual, required)) {
    throw forbidden(`This endpoint requires the ${required} plan or higher; your account is on the ${actual} plan`);
  }
}

/**
 * The areas of the permission table that only some plans include, and the least plan that does:
 * the API guard refuses their routes below it, the services act on them only at it (an account
 * that moved down keeps its settings, unused), and GET /api/me tells a client which to offer as
 * an upgrade.
 */
export const AREA_PLAN = { branding: 'business', integrations: 'business' } as const satisfies Partial<Record<Area, Plan>>;

export function planOfArea(area: Area): Plan | undefined {
  return (AREA_PLAN as Partial<Record<Area, Plan>>)[area];
}

import { forbidden } from './errors.js';

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

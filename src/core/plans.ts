import { forbidden } from './errors.js';

export const PLANS = ['free', 'professional', 'business'] as const;
export type Plan = (typeof PLANS)[number];

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

export function assertPlanAtLeast(actual: string, required: Plan): void {
  const rank = PLANS.indexOf(actual as Plan);
  if (rank < PLANS.indexOf(required)) {
    throw forbidden(`This endpoint requires the ${required} plan or higher; your account is on the ${actual} plan`);
  }
}

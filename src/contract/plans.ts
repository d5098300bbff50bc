/**
 * Plans (docs/api-rules.md#plans, §8). Free, Pro and Ultimate include API access with 1, 7 and 30 days of audio
 * retention. Monthly minutes are not fixed by the API; these are the reference defaults, and a
 * deployment configures its own. `basic` is a plan without API access, so NO_API_ACCESS can occur.
 */
export const PLANS = {
  free: { apiAccess: true, retentionDays: 1, monthlyMinutes: 30 },
  pro: { apiAccess: true, retentionDays: 7, monthlyMinutes: 600 },
  ultimate: { apiAccess: true, retentionDays: 30, monthlyMinutes: 3000 },
  basic: { apiAccess: false, retentionDays: 1, monthlyMinutes: 0 },
} as const satisfies Record<string, { apiAccess: boolean; retentionDays: number; monthlyMinutes: number }>;

export type PlanId = keyof typeof PLANS;
export const PLAN_IDS = Object.keys(PLANS) as [PlanId, ...PlanId[]];
export type SubscriptionStatus = 'active' | 'inactive';
export const BILLING_MODE = 'subscription';

import type { PlanId } from '@agent-tts/contract/plans.js';
import type { AccountAdmin } from '@agent-tts/server';
import type { ClockMembers } from './clocks.js';
import type { SandboxKeys } from './public.js';

/** The test keys on new accounts, with the accounts' ids and the keys' public ids; `label` prefixes their names. */
export async function createKeys(
  admin: AccountAdmin,
  plans: Record<PlanId, { monthlyMinutes: number }>,
  label = 'sandbox',
): Promise<{ keys: SandboxKeys } & ClockMembers> {
  const accountIds: string[] = [];
  const keyIds: string[] = [];
  const make = async (state: string, plan: PlanId, subscription: 'active' | 'inactive' = 'active') => {
    const account = await admin.createAccount(`${label} ${state}`, plan, subscription);
    const { key, record } = await admin.createKey(account.id, `${label} ${state}`);
    accountIds.push(account.id);
    keyIds.push(record.publicId);
    return { account, key, record };
  };
  const almost = await make('minutes_almost_used', 'free');
  await admin.setUsedMinutes(almost.account.id, Math.max(0, plans.free.monthlyMinutes - 1));
  const usedUp = await make('minutes_used_up', 'free');
  await admin.setUsedMinutes(usedUp.account.id, plans.free.monthlyMinutes);
  const revoked = await make('revoked', 'pro');
  await admin.revokeKey(revoked.record.publicId);
  const keys: SandboxKeys = {
    active_free: (await make('active_free', 'free')).key,
    active_pro: (await make('active_pro', 'pro')).key,
    active_ultimate: (await make('active_ultimate', 'ultimate')).key,
    inactive_subscription: (await make('inactive_subscription', 'pro', 'inactive')).key,
    no_api_access: (await make('no_api_access', 'basic')).key,
    minutes_almost_used: almost.key,
    minutes_used_up: usedUp.key,
    revoked: revoked.key,
  };
  return { keys, accountIds, keyIds };
}

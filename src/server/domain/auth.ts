import type { ErrorCode } from '@agent-tts/contract/errors.js';
import { type Account, type AccountRepository, type ApiKeyRecord, type Clock, type KeyRepository, type PlanSettings, systemClock } from '../ports/index.js';
import type { KeyUsageRecorder } from './key-usage.js';
import { DUMMY_HASH, displayKey, parseKey, secretMatches } from './keys.js';

export interface Principal {
  key: ApiKeyRecord;
  account: Account;
  plan: PlanSettings;
  displayKey: string;
}

export type AuthResult =
  | { ok: true; principal: Principal }
  | {
      ok: false;
      code: Extract<ErrorCode, 'INVALID_KEY' | 'INACTIVE_SUBSCRIPTION' | 'NO_API_ACCESS'>;
      message: string;
      displayKey?: string;
      /** Set when the key itself is valid (403): its rate-limit buckets can still be reported. */
      publicId?: string;
    };

const INVALID = 'The API key is missing, malformed, unknown or revoked. Send `Authorization: Bearer tts_<public_id>_<secret>`.';

/**
 * Checks `Authorization: Bearer <key>` (docs/api-rules.md#authentication): the key's secret
 * against its stored SHA-256 hash in constant time (an unknown key is compared against a dummy hash, so
 * it costs the same), then the key's state, the subscription and the plan's API access, in that order.
 * A key that passes is counted (calls, last used). Keys and subscriptions are judged at `clock`'s time
 * (the deployment's: a sandbox's test clock, or the system's).
 */
export class Authenticator {
  constructor(
    private readonly store: AccountRepository & KeyRepository,
    private readonly plans: Record<string, PlanSettings>,
    private readonly usage: KeyUsageRecorder,
    private readonly clock: Clock = systemClock,
  ) {}

  async authenticate(header: string | undefined, now = this.clock.now()): Promise<AuthResult> {
    const match = header === undefined ? null : /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
    const parsed = match?.[1] === undefined ? undefined : parseKey(match[1]);
    if (!parsed) return { ok: false, code: 'INVALID_KEY', message: INVALID };
    const key = await this.store.getKey(parsed.publicId);
    const matches = secretMatches(parsed.secret, key?.secretHash ?? DUMMY_HASH);
    const shown = displayKey(parsed.publicId);
    if (!key || !matches || key.revokedAt !== undefined) {
      return { ok: false, code: 'INVALID_KEY', message: `${INVALID} (key ${shown})`, displayKey: shown };
    }
    const account = await this.store.getAccount(key.accountId);
    if (!account) return { ok: false, code: 'INVALID_KEY', message: `${INVALID} (key ${shown})`, displayKey: shown };
    const plan = this.plans[account.plan];
    if (account.subscription !== 'active') {
      return {
        ok: false,
        code: 'INACTIVE_SUBSCRIPTION',
        message: 'The subscription of this account is not active. Reactivate it on the billing page.',
        displayKey: shown,
        publicId: key.publicId,
      };
    }
    if (!plan?.apiAccess) {
      return {
        ok: false,
        code: 'NO_API_ACCESS',
        message: `The ${account.plan} plan does not include API access. Check the plan or contact support.`,
        displayKey: shown,
        publicId: key.publicId,
      };
    }
    this.usage.record(key.publicId, now);
    return { ok: true, principal: { key, account, plan, displayKey: shown } };
  }
}

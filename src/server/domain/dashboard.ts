import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type {
  Account,
  AccountRepository,
  Clock,
  JobRecord,
  JobRepository,
  KeyRepository,
  PlanSettings,
  SessionRepository,
  UsageRepository,
} from '../ports/index.js';
import type { TimingsBody } from '@agent-tts/contract/timing-schemas.js';
import { displayKey } from './keys.js';
import type { AudioUrlSigner } from './signing.js';
import { centiminutesToMinutes, usageMonth } from './usage.js';

/** A sign-in link is valid this long, and once. */
export const SIGN_IN_TTL_MS = 15 * 60_000;
/** A dashboard session ends this long after sign-in (server-side), or at sign-out. */
export const SESSION_TTL_MS = 8 * 3_600_000;
export const DASHBOARD_PATH = '/dashboard';
export const SIGN_IN_PATH = `${DASHBOARD_PATH}/sign-in`;
/** Sign-in attempts (form submissions) admitted per client address and window. */
export const SIGN_IN_ATTEMPTS = 10;
export const SIGN_IN_WINDOW_MS = 60_000;

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** True when `token` has the shape of a sign-in token (or session id): says nothing of its validity. */
export function looksLikeToken(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

/**
 * The rate-limit bucket of sign-in attempts from a client address. An IPv6 client counts by its /64
 * (one subscriber usually holds a whole /64, so single addresses would be free to change); an
 * IPv4-mapped IPv6 address counts as its IPv4 address. Without an address (no socket, as under
 * `app.request()`), every such attempt shares one bucket.
 */
export function signInBucket(address: string | undefined): string {
  return `dashboard-sign-in:${address ? addressGroup(address) : 'unknown'}`;
}

function addressGroup(address: string): string {
  const bare = address.replace(/%.*$/s, '').toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare)?.[1];
  if (mapped) return mapped;
  if (!bare.includes(':')) return bare;
  const [head = '', tail] = bare.split('::');
  const parts = (text: string) => (text ? text.split(':') : []);
  // A dotted IPv4 ending stands for two groups.
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups =
    tail === undefined ? parts(head) : [...parts(head), ...Array<string>(Math.max(0, 8 - width(parts(head)) - width(parts(tail)))).fill('0'), ...parts(tail)];
  const prefix = groups.slice(0, 4).map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16).toString(16) : g));
  return `${prefix.join(':')}::/64`;
}

export interface SignedIn {
  /** The session id for the cookie (only its SHA-256 is stored). */
  sessionId: string;
  account: Account;
  expiresAt: number;
}

/**
 * Dashboard sign-in and sessions. The operator creates a one-time sign-in link for an account (the
 * token in it is 256 random bits; the store keeps only its SHA-256, and hands it out once, within
 * 15 minutes). Signing in always starts a new session (a fresh id: the id is rotated at sign-in);
 * the session expires on the server. Forms carry a CSRF token derived from the session id. Expiry is
 * judged on `clock` (the deployment's: a test clock under the sandbox).
 */
export class DashboardSessions {
  constructor(
    private readonly store: AccountRepository & KeyRepository & SessionRepository & UsageRepository & Pick<JobRepository, 'listRecentJobs'>,
    private readonly clock: Clock,
  ) {}

  async createSignInLink(accountId: string, publicBaseUrl: string, now = this.clock.now()): Promise<{ url: string; expiresAt: number }> {
    if (!(await this.store.getAccount(accountId))) throw new Error(`No account ${accountId}.`);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = now + SIGN_IN_TTL_MS;
    await this.store.createSignInToken({ tokenHash: sha256(token), accountId, expiresAt });
    return { url: `${publicBaseUrl.replace(/\/+$/, '')}${SIGN_IN_PATH}?token=${token}`, expiresAt };
  }

  /** Takes the token and starts a session; undefined when the token is unknown, used or expired. */
  async signIn(token: string): Promise<SignedIn | undefined> {
    const now = this.clock.now();
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const accountId = await this.store.consumeSignInToken(sha256(token), now);
    if (!accountId) return undefined;
    const account = await this.store.getAccount(accountId);
    if (!account) return undefined;
    const sessionId = randomBytes(32).toString('base64url');
    const expiresAt = now + SESSION_TTL_MS;
    await this.store.createSession({ idHash: sha256(sessionId), accountId, createdAt: now, expiresAt });
    return { sessionId, account, expiresAt };
  }

  /** The signed-in account of a session id (from the cookie), unless it is unknown or expired. */
  async resolve(sessionId: string | undefined): Promise<Account | undefined> {
    const now = this.clock.now();
    if (!sessionId || !TOKEN_PATTERN.test(sessionId)) return undefined;
    const session = await this.store.getSession(sha256(sessionId), now);
    return session ? this.store.getAccount(session.accountId) : undefined;
  }

  async signOut(sessionId: string | undefined): Promise<void> {
    if (sessionId && TOKEN_PATTERN.test(sessionId)) await this.store.deleteSession(sha256(sessionId));
  }

  /** The CSRF token of a session: an HMAC of a fixed label under the session id (never stored). */
  csrfToken(sessionId: string): string {
    return createHmac('sha256', sessionId).update('agent-tts dashboard csrf').digest('base64url');
  }

  csrfMatches(sessionId: string, presented: unknown): boolean {
    if (typeof presented !== 'string') return false;
    const expected = Buffer.from(this.csrfToken(sessionId));
    const given = Buffer.from(presented);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

export interface KeyView {
  displayKey: string;
  name: string;
  createdAt: number;
  lastUsedAt?: number;
  callCount: number;
  revokedAt?: number;
  active: boolean;
}

interface UsageView {
  plan: string;
  subscription: string;
  usedMinutes: number;
  limitMinutes: number;
  remainingMinutes: number;
  /** When the monthly minutes reset: the first day of next month, 00:00 UTC. */
  resetsAt: number;
  retentionDays: number;
  billingUrl: string;
}

interface JobView {
  id: string;
  /**
   * The start of the job's text (TEXT_SNIPPET characters at most, an ellipsis when cut); empty once
   * the job has finished, as the store deletes a job's text then.
   */
  textSnippet: string;
  status: JobRecord['status'];
  voice: string;
  durationSeconds?: number;
  createdAt: number;
  /** Signed URL of the audio, for completed jobs whose audio is still kept. */
  audioUrl?: string;
  /** Signed URLs of the captions and word timings, for those of them that asked for timings. */
  captions?: TimingsBody;
  /**
   * Signed stream URL of a job still processing (docs/api-rules.md#streaming-audio): its audio as it
   * is made, so that the page can play it before it is done.
   */
  streamUrl?: string;
}

export interface DashboardView {
  account: Account;
  keys: KeyView[];
  /** True while a key is active: creating another is refused (at most one). */
  hasActiveKey: boolean;
  usage: UsageView;
  jobs: JobView[];
}

const RECENT_JOBS = 20;
/** Characters of a job's text the dashboard shows. */
const TEXT_SNIPPET = 60;

/** The first `max` characters of a text (whitespace runs as one space), with an ellipsis when cut. */
export function textSnippet(text: string, max = TEXT_SNIPPET): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim());
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max).join('').trimEnd()}…`;
}

/** A duration as m:ss, or h:mm:ss from an hour on, to the nearest second (992.7 → "16:33"). */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** Everything the dashboard shows for an account, read through the store (never cached), at the time of `deps.clock`. */
export async function dashboardView(
  account: Account,
  deps: {
    store: AccountRepository & KeyRepository & SessionRepository & UsageRepository & Pick<JobRepository, 'listRecentJobs'>;
    plans: Record<string, PlanSettings>;
    signer: AudioUrlSigner;
    publicBaseUrl: string;
    billingUrl: string;
    clock: Clock;
  },
): Promise<DashboardView> {
  const { store } = deps;
  const now = deps.clock.now();
  const [keys, usage, jobs] = await Promise.all([
    store.listKeys(account.id),
    store.getUsage(account.id, usageMonth(now)),
    store.listRecentJobs(account.id, RECENT_JOBS),
  ]);
  const plan = deps.plans[account.plan] ?? { apiAccess: false, retentionDays: 0, monthlyMinutes: 0 };
  const used = centiminutesToMinutes(usage.usedCentiminutes);
  const month = new Date(now);
  const keyViews = keys
    .map((k) => ({
      displayKey: displayKey(k.publicId),
      name: k.name,
      createdAt: k.createdAt,
      lastUsedAt: k.lastUsedAt,
      callCount: k.callCount,
      revokedAt: k.revokedAt,
      active: k.revokedAt === undefined,
    }))
    .sort((a, b) => Number(b.active) - Number(a.active) || b.createdAt - a.createdAt);
  return {
    account,
    keys: keyViews,
    hasActiveKey: keyViews.some((k) => k.active),
    usage: {
      plan: account.plan,
      subscription: account.subscription,
      usedMinutes: used,
      limitMinutes: plan.monthlyMinutes,
      remainingMinutes: Math.max(0, Math.round((plan.monthlyMinutes - used) * 100) / 100),
      resetsAt: Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1),
      retentionDays: plan.retentionDays,
      billingUrl: deps.billingUrl,
    },
    jobs: jobs.map((j) => {
      const kept = j.status === 'completed' && (j.legacyExpiresAt === undefined || j.legacyExpiresAt > now);
      return {
        id: j.id,
        textSnippet: textSnippet(j.text),
        status: j.status,
        voice: j.voice,
        durationSeconds: j.durationSeconds,
        createdAt: j.createdAt,
        audioUrl: kept ? deps.signer.sign(deps.publicBaseUrl, j.id, now) : undefined,
        captions: kept && j.timestamps === 'word' ? deps.signer.signTimings(deps.publicBaseUrl, j.id, now) : undefined,
        streamUrl: j.status === 'processing' ? deps.signer.signStream(deps.publicBaseUrl, j.id, now) : undefined,
      };
    }),
  };
}

import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { Account, AccountRepository, ApiKeyRecord, JobRecord } from '../../ports/index.js';

/**
 * What the Store contract suites share: the harness an adapter's test hands them, the records they
 * store, and the month and times those records are set in.
 */

/**
 * A store for the suites, narrowed to the repositories a suite tests. Each call of `open` gives a
 * store no other test uses (a fresh file, a fresh key prefix); `close` releases it and whatever it
 * created.
 */
export interface Harness<S> {
  store: S;
  close(): Promise<void>;
}

export type OpenStore<S> = () => Promise<Harness<S>>;

export const MONTH = '2026-04';
export const T0 = Date.UTC(2026, 3, 10, 12, 0, 0);
export const DAY = 86_400_000;

export function newAccount(overrides: Partial<Account> = {}): Account {
  return { id: randomUUID(), name: 'contract account', plan: 'pro', subscription: 'active', createdAt: T0, ...overrides };
}

export function newKey(accountId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    publicId: randomBytes(4).toString('hex'),
    accountId,
    secretHash: randomBytes(32).toString('hex'),
    name: 'contract key',
    createdAt: T0,
    callCount: 0,
    ...overrides,
  };
}

export function newJob(accountId: string, overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    id: randomUUID(),
    accountId,
    keyPublicId: 'abcdef01',
    status: 'processing',
    text: 'Hello, contract. Ünïcödé “quotes” and 日本語 survive the round trip.',
    voice: 'af_heart',
    language: 'en-US',
    speed: 1.2,
    createdAt: T0,
    deleteAfter: T0 + 7 * DAY,
    reservedCentiminutes: 30,
    usageMonth: MONTH,
    progress: 0,
    ...overrides,
  };
}

/**
 * The repository the suites of keys, sessions and jobs create their accounts through: what they test
 * belongs to an account, and an account of its own for each test keeps tests from seeing each other's
 * usage or keys.
 */
export type AccountOwner = Pick<AccountRepository, 'createAccount'>;

/** A new account, stored. */
export async function storedAccount(store: AccountOwner, overrides: Partial<Account> = {}): Promise<Account> {
  const a = newAccount(overrides);
  await store.createAccount(a);
  return a;
}

/**
 * Opens a store before the tests of the enclosing `describe` and closes it after them; the function
 * returned gives that store to a test.
 */
export function openedStore<S>(open: OpenStore<S>): () => S {
  let h: Harness<S> | undefined;
  beforeAll(async () => {
    h = await open();
  });
  afterAll(async () => {
    await h?.close();
  });
  return () => {
    if (!h) throw new Error('the store is opened in beforeAll: read it in a test');
    return h.store;
  };
}

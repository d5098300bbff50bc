import { describe, expect, it } from 'vitest';
import type { Store, StoreConnection } from '../ports/index.js';
import { describeAccountRepositoryContract } from './contracts/accounts.contract.js';
import { type Harness, openedStore } from './contracts/fixtures.contract.js';
import { describeJobRepositoryContract } from './contracts/jobs.contract.js';
import { describeKeyRepositoryContract } from './contracts/keys.contract.js';
import { describeSessionRepositoryContract } from './contracts/sessions.contract.js';

/**
 * The behaviour every Store adapter owes the domain, written once and run against each adapter
 * (SQLite and Redis): the suite of each repository (contracts/*.contract.ts), each on a store of its
 * own from `open`, and the connection's ping.
 */
export type StoreHarness = Harness<Store>;

export function describeStoreContract(name: string, open: () => Promise<StoreHarness>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip ?? false)(`Store contract: ${name}`, () => {
    const current = openedStore<StoreConnection>(open);

    it('answers a ping', async () => {
      await expect(current().ping()).resolves.toBeUndefined();
    });

    describeAccountRepositoryContract(open);
    describeKeyRepositoryContract(open);
    describeSessionRepositoryContract(open);
    describeJobRepositoryContract(open);
  });
}

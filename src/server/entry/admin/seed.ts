import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { DEFAULT_ACCEPTANCE_KEYS, DEFAULT_FIXTURES_PATH, seed as seedAccounts, writeFixtures } from '../../seed.js';
import { type AdminCommand, fail } from './context.js';

/**
 * Fails (exit 2) unless `path` can be written; true when it exists already. Directories missing on
 * the way are created when the file is written, so the nearest one that exists must be writable.
 */
async function checkWritable(path: string): Promise<boolean> {
  const exists = await stat(path).then(
    (s) => {
      if (!s.isFile()) fail(`--out ${path} is not a file`, 2);
      return true;
    },
    () => false,
  );
  let target = exists ? path : dirname(resolve(path));
  while (!exists) {
    const found = await stat(target).then(
      (s) => s,
      () => undefined,
    );
    if (found && !found.isDirectory()) fail(`cannot write --out ${path} (${target} is not a directory); nothing was created`, 2);
    if (found || dirname(target) === target) break;
    target = dirname(target);
  }
  await access(target, constants.W_OK).catch((error: NodeJS.ErrnoException) =>
    fail(`cannot write --out ${path} (${error.code ?? error.message}); nothing was created`, 2),
  );
  return exists;
}

/** `seed [--out <file>] [--active 8] [--acceptance 64]`: fresh accounts in every state and the conformance fixtures. */
const seed: AdminCommand = async ({ values, config, store, audio, print }) => {
  const count = Number(values.active ?? 8);
  if (!Number.isInteger(count) || count < 1) fail('--active must be a whole number ≥ 1', 2);
  const acceptance = Number(values.acceptance ?? DEFAULT_ACCEPTANCE_KEYS);
  if (!Number.isInteger(acceptance) || acceptance < 0) fail('--acceptance must be a whole number ≥ 0', 2);
  const out = values.out ?? DEFAULT_FIXTURES_PATH;
  // Checked before any account is made: the file is the only place the full keys are kept.
  const replaced = await checkWritable(out);
  const fixtures = await seedAccounts(store, audio, config, { active: count, acceptance });
  await writeFixtures(out, fixtures);
  print(
    `${replaced ? 'replaced' : 'wrote'} ${out}: ${fixtures.keys.active.length} active keys, ${fixtures.keys.acceptance?.length ?? 0} acceptance keys, one key in every other state, a failed job and an expired audio URL (base_url ${fixtures.base_url})`,
    { fixtures: out, base_url: fixtures.base_url, active_keys: fixtures.keys.active.length, acceptance_keys: fixtures.keys.acceptance?.length ?? 0 },
  );
};

/** The `seed` command (one word). */
export const SEED_COMMANDS = { seed } satisfies Record<string, AdminCommand>;

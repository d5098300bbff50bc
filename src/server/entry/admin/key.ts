import { createInterface } from 'node:readline/promises';
import { displayKey } from '../../domain/keys.js';
import { type AdminCommand, fail } from './context.js';

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await rl.question(`${question} [y/N] `);
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

/** `key create --account <account-id> [--name <name>]`: prints the full key once. */
const create: AdminCommand = async ({ values, admin, print }) => {
  if (!values.account) fail('key create needs --account', 2);
  const { key, record } = await admin.createKey(values.account, values.name);
  process.stderr.write('The full key is shown once only. Store it now; it cannot be recovered.\n');
  print(key, { key, display_key: displayKey(record.publicId), account_id: record.accountId, name: record.name });
};

/** `key list [--account <account-id>]` */
const list: AdminCommand = async ({ values, store, print }) => {
  const keys = await store.listKeys(values.account);
  const rows = keys.map((k) => ({
    display_key: displayKey(k.publicId),
    name: k.name,
    account_id: k.accountId,
    created_at: new Date(k.createdAt).toISOString(),
    last_used_at: k.lastUsedAt ? new Date(k.lastUsedAt).toISOString() : null,
    call_count: k.callCount,
    state: k.revokedAt ? 'revoked' : 'active',
  }));
  print(
    rows
      .map((r) => `${r.display_key}  ${r.state.padEnd(7)} calls=${r.call_count}  last_used=${r.last_used_at ?? 'never'}  created=${r.created_at}  ${r.name}`)
      .join('\n') || '(no keys)',
    rows,
  );
};

/** `key rename <tts_public_id> <name>` */
const rename: AdminCommand = async ({ rest, admin, print }) => {
  const [key, ...name] = rest;
  if (!key || name.length === 0) fail('key rename needs <tts_public_id> <name>', 2);
  await admin.renameKey(key, name.join(' '));
  print(`${displayKey((await admin.requireKey(key)).publicId)} renamed`, { ok: true });
};

/** `key revoke <tts_public_id> [--yes]`: asks for confirmation unless --yes. */
const revoke: AdminCommand = async ({ values, rest, admin, print }) => {
  const key = rest[0] ?? fail('key revoke needs <tts_public_id>', 2);
  const record = await admin.requireKey(key);
  const shown = displayKey(record.publicId);
  if (!values.yes && !(await confirm(`Revoke ${shown}? Requests with it fail at once, and this cannot be undone.`))) {
    fail('not revoked (confirm at the prompt, or pass --yes)', 3);
  }
  const revoked = await admin.revokeKey(key);
  print(revoked ? `${shown} revoked` : `${shown} was already revoked`, { display_key: shown, revoked });
};

/** The `key …` commands. */
export const KEY_COMMANDS = {
  'key create': create,
  'key list': list,
  'key rename': rename,
  'key revoke': revoke,
} satisfies Record<string, AdminCommand>;

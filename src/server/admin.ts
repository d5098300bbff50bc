import { access, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { PLAN_IDS, type PlanId } from '@agent-tts/contract/plans.js';
import { parseVoice, resolveLanguage } from '@agent-tts/contract/voices.js';
import { isLanguageCode } from '@agent-tts/contract/languages.js';
import { ConfigError, loadConfig } from './config.js';
import { AccountAdmin, AdminError } from './domain/accounts.js';
import { type Account, systemClock } from './ports/index.js';
import { DashboardSessions } from './domain/dashboard.js';
import { displayKey } from './domain/keys.js';
import { DEFAULT_ACCEPTANCE_KEYS, DEFAULT_FIXTURES_PATH, seed, writeFixtures } from './seed.js';
import { openStorage } from './compose.js';
import { sweepExpiredJobs, sweepLeftovers } from './domain/retention.js';
import { createLogger } from './log.js';
import { describeError } from './redact.js';
import { constants } from 'node:fs';
import { dirname, resolve } from 'node:path';

const HELP = `agent-tts-admin — manage accounts and keys of an agent-tts deployment (the key management the API leaves to a dashboard).
Uses the same configuration as the server (DATA_DIR, or REDIS_URL in distributed mode).

  account create --name <name> [--plan free|pro|ultimate|basic] [--inactive]
  account list
  account set <account-id> [--plan <plan>] [--subscription active|inactive] [--name <name>]
  account usage <account-id> --minutes <n>      set this month's used minutes
  account sign-in-link <account-id>             prints a one-time dashboard sign-in URL (valid 15 minutes, usable once)
  key create --account <account-id> [--name <name>]   prints the full key once
  key list [--account <account-id>]
  key rename <tts_public_id> <name>
  key revoke <tts_public_id> [--yes]           asks for confirmation unless --yes
  job import-legacy --account <account-id> --expires-at <ISO date> [--audio <file.mp3>]
                    [--voice af_heart] [--speed 1] [--language en] [--duration <seconds>]
  storage sweep                                 delete jobs past retention and stale partial audio now
  seed [--out ${DEFAULT_FIXTURES_PATH}] [--active 8] [--acceptance 64]
                    fresh accounts in every state + conformance fixtures: active keys, keys for the
                    acceptance rules, a failed job, a completed job with an expired audio URL. The file
                    holds full keys (mode 0600); a missing directory is created (mode 0700)

Add --json for machine-readable output, as the API writes it: one JSON document ending in a newline,
snake_case names, times in ISO 8601 (UTC).`;

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

/** An account as --json prints it: the API's conventions (snake_case, ISO 8601 times), not the store's record. */
function accountJson(account: Account): Record<string, unknown> {
  return {
    id: account.id,
    name: account.name,
    plan: account.plan,
    subscription: account.subscription,
    created_at: new Date(account.createdAt).toISOString(),
  };
}

function fail(message: string, code = 1): never {
  process.stderr.write(`agent-tts-admin: ${message}\n`);
  process.exit(code);
}

function planOf(value: string | undefined, fallback: PlanId): PlanId {
  if (value === undefined) return fallback;
  if (!(PLAN_IDS as string[]).includes(value)) fail(`unknown plan "${value}"; one of ${PLAN_IDS.join(', ')}`, 2);
  return value as PlanId;
}

async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await rl.question(`${question} [y/N] `);
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      inactive: { type: 'boolean' },
      subscription: { type: 'string' },
      account: { type: 'string' },
      minutes: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
      json: { type: 'boolean' },
      out: { type: 'string' },
      active: { type: 'string' },
      acceptance: { type: 'string' },
      'expires-at': { type: 'string' },
      audio: { type: 'string' },
      voice: { type: 'string' },
      speed: { type: 'string' },
      language: { type: 'string' },
      duration: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, action, ...rest] = positionals;
  if (values.help || !group) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const config = loadConfig();
  const storage = await openStorage(config, createLogger('silent'), 'agent-tts-admin');
  const { store, audio } = storage;
  const admin = new AccountAdmin(store);
  const print = (human: string, json: unknown) => process.stdout.write(`${values.json ? JSON.stringify(json, null, 2) : human}\n`);
  try {
    const command = group === 'seed' ? 'seed' : `${group} ${action ?? ''}`.trim();
    switch (command) {
      case 'account create': {
        if (!values.name) fail('account create needs --name', 2);
        const account = await admin.createAccount(values.name, planOf(values.plan, 'pro'), values.inactive ? 'inactive' : 'active');
        print(`account ${account.id} (${account.plan}, ${account.subscription})`, accountJson(account));
        break;
      }
      case 'account list': {
        const accounts = await store.listAccounts();
        print(
          accounts.map((a) => `${a.id}  ${a.plan.padEnd(8)} ${a.subscription.padEnd(8)} ${a.name}`).join('\n') || '(no accounts)',
          accounts.map(accountJson),
        );
        break;
      }
      case 'account set': {
        const id = rest[0] ?? fail('account set needs an account id', 2);
        const subscription = values.subscription;
        if (subscription !== undefined && subscription !== 'active' && subscription !== 'inactive') fail('--subscription is active or inactive', 2);
        const patch = {
          ...(values.plan ? { plan: planOf(values.plan, 'pro') } : {}),
          ...(subscription ? { subscription: subscription as 'active' | 'inactive' } : {}),
          ...(values.name ? { name: values.name } : {}),
        };
        if (!(await store.updateAccount(id, patch))) fail(`no account ${id}`);
        const account = await admin.requireAccount(id);
        print(`account ${account.id} (${account.plan}, ${account.subscription})`, accountJson(account));
        break;
      }
      case 'account usage': {
        const id = rest[0] ?? fail('account usage needs an account id', 2);
        const minutes = Number(values.minutes);
        if (!Number.isFinite(minutes) || minutes < 0) fail('--minutes must be a number ≥ 0', 2);
        await admin.setUsedMinutes(id, minutes);
        print(`account ${id}: ${minutes} minutes used this month`, { account_id: id, minutes });
        break;
      }
      case 'account sign-in-link': {
        const id = rest[0] ?? fail('account sign-in-link needs an account id', 2);
        await admin.requireAccount(id);
        const link = await new DashboardSessions(store, systemClock).createSignInLink(id, config.publicBaseUrl);
        const expires = new Date(link.expiresAt).toISOString();
        print(`${link.url}\nvalid until ${expires}, for one sign-in`, { url: link.url, expires_at: expires, account_id: id });
        break;
      }
      case 'key create': {
        if (!values.account) fail('key create needs --account', 2);
        const { key, record } = await admin.createKey(values.account, values.name);
        process.stderr.write('The full key is shown once only. Store it now; it cannot be recovered.\n');
        print(key, { key, display_key: displayKey(record.publicId), account_id: record.accountId, name: record.name });
        break;
      }
      case 'key list': {
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
            .map(
              (r) => `${r.display_key}  ${r.state.padEnd(7)} calls=${r.call_count}  last_used=${r.last_used_at ?? 'never'}  created=${r.created_at}  ${r.name}`,
            )
            .join('\n') || '(no keys)',
          rows,
        );
        break;
      }
      case 'key rename': {
        const [key, ...name] = rest;
        if (!key || name.length === 0) fail('key rename needs <tts_public_id> <name>', 2);
        await admin.renameKey(key, name.join(' '));
        print(`${displayKey((await admin.requireKey(key)).publicId)} renamed`, { ok: true });
        break;
      }
      case 'key revoke': {
        const key = rest[0] ?? fail('key revoke needs <tts_public_id>', 2);
        const record = await admin.requireKey(key);
        const shown = displayKey(record.publicId);
        if (!values.yes && !(await confirm(`Revoke ${shown}? Requests with it fail at once, and this cannot be undone.`))) {
          fail('not revoked (confirm at the prompt, or pass --yes)', 3);
        }
        const revoked = await admin.revokeKey(key);
        print(revoked ? `${shown} revoked` : `${shown} was already revoked`, { display_key: shown, revoked });
        break;
      }
      case 'job import-legacy': {
        if (!values.account || !values['expires-at']) fail('job import-legacy needs --account and --expires-at', 2);
        const expiresAt = Date.parse(values['expires-at']);
        if (Number.isNaN(expiresAt)) fail('--expires-at must be an ISO date', 2);
        const voice = parseVoice(values.voice ?? 'af_heart') ?? fail('--voice is not a valid voice id', 2);
        const language = values.language;
        if (language !== undefined && !isLanguageCode(language))
          fail('--language must be a Supertonic language code (docs/api-rules.md#voices-and-languages)', 2);
        const keys = await store.listKeys(values.account);
        const owner = keys.find((k) => !k.revokedAt) ?? keys[0] ?? fail('the account has no key', 2);
        const size = values.audio ? (await stat(values.audio)).size : undefined;
        const job = await admin.importLegacyJob({
          accountId: values.account,
          keyPublicId: owner.publicId,
          expiresAt,
          voice: voice.id,
          speed: Number(values.speed ?? 1),
          language: resolveLanguage(voice, language as never),
          durationSeconds: values.duration ? Number(values.duration) : undefined,
          fileSizeBytes: size,
        });
        if (values.audio) await audio.putFile(job.id, values.audio);
        print(`legacy job ${job.id} (expires ${new Date(expiresAt).toISOString()})`, { job_id: job.id });
        break;
      }
      case 'storage sweep': {
        const log = createLogger('silent');
        const jobs = await sweepExpiredJobs(store, audio, log, systemClock.now());
        const leftovers = await sweepLeftovers(audio, log);
        print(`${jobs} expired jobs deleted; stale partial audio of ${leftovers} jobs removed`, { expired_jobs: jobs, leftover_jobs: leftovers });
        break;
      }
      case 'seed': {
        const count = Number(values.active ?? 8);
        if (!Number.isInteger(count) || count < 1) fail('--active must be a whole number ≥ 1', 2);
        const acceptance = Number(values.acceptance ?? DEFAULT_ACCEPTANCE_KEYS);
        if (!Number.isInteger(acceptance) || acceptance < 0) fail('--acceptance must be a whole number ≥ 0', 2);
        const out = values.out ?? DEFAULT_FIXTURES_PATH;
        // Checked before any account is made: the file is the only place the full keys are kept.
        const replaced = await checkWritable(out);
        const fixtures = await seed(store, audio, config, { active: count, acceptance });
        await writeFixtures(out, fixtures);
        print(
          `${replaced ? 'replaced' : 'wrote'} ${out}: ${fixtures.keys.active.length} active keys, ${fixtures.keys.acceptance?.length ?? 0} acceptance keys, one key in every other state, a failed job and an expired audio URL (base_url ${fixtures.base_url})`,
          { fixtures: out, base_url: fixtures.base_url, active_keys: fixtures.keys.active.length, acceptance_keys: fixtures.keys.acceptance?.length ?? 0 },
        );
        break;
      }
      default:
        fail(`unknown command "${command}"\n\n${HELP}`, 2);
    }
  } finally {
    await storage.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // An invalid setting exits 2, as with the server and the worker.
  if (error instanceof ConfigError) fail(describeError(error), 2);
  if (error instanceof AdminError) fail(error.message);
  if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) fail(`${error.message}\n\n${HELP}`, 2);
  // A library's message may quote a URL setting, credentials and all: printed only redacted.
  fail(describeError(error));
});

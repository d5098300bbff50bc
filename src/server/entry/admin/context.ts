import { parseArgs } from 'node:util';
import { PLAN_IDS, type PlanId } from '@agent-tts/contract/plans.js';
import type { Config } from '../../config.js';
import type { AccountAdmin } from '../../domain/accounts.js';
import type { Account, Store } from '../../ports/index.js';
import type { AudioStorage } from '../../domain/job-files.js';

/** Every option of every admin command; each command reads those it takes. */
const OPTIONS = {
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
} as const;

/** The command line of `agent-tts-admin`: options anywhere, the command words and arguments as positionals. */
export function parseAdminArgs(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
}

type AdminValues = ReturnType<typeof parseAdminArgs>['values'];

/** What a command runs with: its options and arguments (after the command words), the deployment's storage. */
interface AdminContext {
  values: AdminValues;
  /** The positionals after the command words. */
  rest: string[];
  config: Config;
  store: Store;
  audio: AudioStorage;
  admin: AccountAdmin;
  /** Prints the result on stdout: `human`, or `json` as a JSON document under --json. */
  print(human: string, json: unknown): void;
}

/** One admin command, named by its words in the command table (commands.ts). */
export type AdminCommand = (ctx: AdminContext) => Promise<void>;

/** Ends the process: the message on stderr, exit code `code` (1: the command failed; 2: a usage error; 3: not confirmed). */
export function fail(message: string, code = 1): never {
  process.stderr.write(`agent-tts-admin: ${message}\n`);
  process.exit(code);
}

/** An account as --json prints it: the API's conventions (snake_case, ISO 8601 times), not the store's record. */
export function accountJson(account: Account): Record<string, unknown> {
  return {
    id: account.id,
    name: account.name,
    plan: account.plan,
    subscription: account.subscription,
    created_at: new Date(account.createdAt).toISOString(),
  };
}

export function planOf(value: string | undefined, fallback: PlanId): PlanId {
  if (value === undefined) return fallback;
  if (!(PLAN_IDS as string[]).includes(value)) fail(`unknown plan "${value}"; one of ${PLAN_IDS.join(', ')}`, 2);
  return value as PlanId;
}

import { ACCOUNT_COMMANDS } from './account.js';
import type { AdminCommand } from './context.js';
import { JOB_COMMANDS } from './job.js';
import { KEY_COMMANDS } from './key.js';
import { SEED_COMMANDS } from './seed.js';
import { STORAGE_COMMANDS } from './storage.js';

/** Every command of `agent-tts-admin`, by its words ("account create", "seed"); help.ts lists them. */
export const COMMANDS: Readonly<Record<string, AdminCommand>> = {
  ...ACCOUNT_COMMANDS,
  ...KEY_COMMANDS,
  ...JOB_COMMANDS,
  ...STORAGE_COMMANDS,
  ...SEED_COMMANDS,
};

/** The command `positionals` name: `seed` alone, otherwise a group and an action ("key revoke"). */
export function commandOf(group: string, action: string | undefined): string {
  return group === 'seed' ? 'seed' : `${group} ${action ?? ''}`.trim();
}

import { readFileSync } from 'node:fs';
import { LuaScript } from './lua-script.js';

/**
 * The store's Lua scripts (lua/*.lua beside this module; the build copies them beside the compiled
 * one), each read once when this module loads and run with EVALSHA (see LuaScript). Each runs
 * atomically in Redis; that is what makes the invariants hold across instances. Each file says which
 * KEYS and ARGV it takes.
 *
 * The scripts that take a fence (create-job.lua, claim-idempotency-key.lua) begin by returning their
 * "late" reply when Redis's clock is past it, the time at which the caller gave up on the script (see
 * fenceAt): a script Redis runs only after a freeze must not act for a caller that was already told
 * it failed.
 */
const script = (file: string) => new LuaScript(readFileSync(new URL(`./lua/${file}`, import.meta.url), 'utf8'));

export const CREATE_ACCOUNT = script('create-account.lua');
/** Sets fields of a hash (an account, a key) only if it exists. */
export const UPDATE_IF_EXISTS = script('update-if-exists.lua');
export const CREATE_KEY = script('create-key.lua');
export const REVOKE_KEY = script('revoke-key.lua');
export const RECORD_KEY_USE = script('record-key-use.lua');
export const CLAIM_IDEMPOTENCY_KEY = script('claim-idempotency-key.lua');
export const RELEASE_IDEMPOTENCY_KEY = script('release-idempotency-key.lua');
export const CREATE_JOB = script('create-job.lua');
export const UPDATE_PROGRESS = script('update-progress.lua');
/** Completion and failure alike. */
export const SETTLE_JOB = script('settle-job.lua');
export const DELETE_EXPIRED_JOB = script('delete-expired-job.lua');

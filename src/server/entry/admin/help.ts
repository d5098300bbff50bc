import { DEFAULT_FIXTURES_PATH } from '../../seed.js';

/** `agent-tts-admin --help`: every command of the command table (commands.ts) and its options. */
export const HELP = `agent-tts-admin — manage accounts and keys of an agent-tts deployment (the key management the API leaves to a dashboard).
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

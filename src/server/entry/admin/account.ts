import { DashboardSessions } from '../../domain/dashboard.js';
import { systemClock } from '../../ports/index.js';
import { accountJson, type AdminCommand, fail, planOf } from './context.js';

/** `account create --name <name> [--plan <plan>] [--inactive]` */
const create: AdminCommand = async ({ values, admin, print }) => {
  if (!values.name) fail('account create needs --name', 2);
  const account = await admin.createAccount(values.name, planOf(values.plan, 'pro'), values.inactive ? 'inactive' : 'active');
  print(`account ${account.id} (${account.plan}, ${account.subscription})`, accountJson(account));
};

/** `account list` */
const list: AdminCommand = async ({ store, print }) => {
  const accounts = await store.listAccounts();
  print(accounts.map((a) => `${a.id}  ${a.plan.padEnd(8)} ${a.subscription.padEnd(8)} ${a.name}`).join('\n') || '(no accounts)', accounts.map(accountJson));
};

/** `account set <account-id> [--plan <plan>] [--subscription active|inactive] [--name <name>]` */
const set: AdminCommand = async ({ values, rest, store, admin, print }) => {
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
};

/** `account usage <account-id> --minutes <n>`: sets this month's used minutes. */
const usage: AdminCommand = async ({ values, rest, admin, print }) => {
  const id = rest[0] ?? fail('account usage needs an account id', 2);
  const minutes = Number(values.minutes);
  if (!Number.isFinite(minutes) || minutes < 0) fail('--minutes must be a number ≥ 0', 2);
  await admin.setUsedMinutes(id, minutes);
  print(`account ${id}: ${minutes} minutes used this month`, { account_id: id, minutes });
};

/** `account sign-in-link <account-id>`: a one-time dashboard sign-in URL. */
const signInLink: AdminCommand = async ({ rest, config, store, admin, print }) => {
  const id = rest[0] ?? fail('account sign-in-link needs an account id', 2);
  await admin.requireAccount(id);
  const link = await new DashboardSessions(store, systemClock).createSignInLink(id, config.publicBaseUrl);
  const expires = new Date(link.expiresAt).toISOString();
  print(`${link.url}\nvalid until ${expires}, for one sign-in`, { url: link.url, expires_at: expires, account_id: id });
};

/** The `account …` commands. */
export const ACCOUNT_COMMANDS = {
  'account create': create,
  'account list': list,
  'account set': set,
  'account usage': usage,
  'account sign-in-link': signInLink,
} satisfies Record<string, AdminCommand>;

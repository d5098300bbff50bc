import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJob } from '../../../../test/helpers/http.js';
import { startInProcessHttp, type SeededServer } from '../../../../test/helpers/in-process.js';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** agent-tts-admin's output and its seed command, on the data directory of a server in this process. */
describe('agent-tts-admin', () => {
  let server: SeededServer;
  beforeAll(async () => {
    server = await startInProcessHttp({}, { synth: 'instant' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('prints --json as the API writes: snake_case, ISO 8601 times, one document ending in a newline', async () => {
    const created = await server.admin(['account', 'create', '--name', 'json', '--plan', 'free', '--json']);
    expect(created.stdout.endsWith('}\n')).toBe(true);
    const account = JSON.parse(created.stdout);
    expect(Object.keys(account).sort()).toEqual(['created_at', 'id', 'name', 'plan', 'subscription']);
    expect(account.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(account.created_at) - Date.now())).toBeLessThan(60_000);
    const set = JSON.parse((await server.admin(['account', 'set', account.id, '--plan', 'pro', '--json'])).stdout);
    expect(set).toEqual({ ...account, plan: 'pro' });
    const list = await server.admin(['account', 'list', '--json']);
    expect(list.stdout.endsWith(']\n')).toBe(true);
    expect(JSON.parse(list.stdout)).toContainEqual({ ...account, plan: 'pro' });
    // No camelCase name anywhere in the machine-readable output.
    for (const out of [created.stdout, list.stdout, (await server.admin(['key', 'list', '--json'])).stdout]) expect(out).not.toMatch(/"[a-z]+[A-Z]\w*":/);
  });

  it('seed checks that it can write its fixtures file before it creates anything', async () => {
    const before = (await server.admin(['account', 'list', '--json'])).stdout;
    // A file where a directory should be: refused before any account is made.
    const refused = await server.admin(['seed', '--out', join(server.fixturesPath, 'fixtures.json')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cannot write --out .*fixtures\.json\/fixtures\.json \(.* is not a directory\); nothing was created/);
    expect((await server.admin(['account', 'list', '--json'])).stdout).toBe(before);
    // A missing directory is made, for its owner only, and the file is readable by its owner only.
    const nested = join(server.dataDir, 'new-dir', 'deeper', 'fixtures.server.json');
    const made = await server.admin(['seed', '--out', nested, '--active', '1', '--acceptance', '0']);
    expect(made.code, made.stderr).toBe(0);
    expect((await stat(join(server.dataDir, 'new-dir'))).mode & 0o777).toBe(0o700);
    expect((await stat(nested)).mode & 0o777).toBe(0o600);
    // Over an existing file it says so, and the file holds the new keys whole.
    const again = await server.admin(['seed', '--out', server.fixturesPath, '--active', '1']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^replaced /);
    const fixtures = JSON.parse(await readFile(server.fixturesPath, 'utf8'));
    expect(fixtures.keys.active).toHaveLength(1);
    expect((await getJob(server.baseUrl, fixtures.keys.active[0], UNKNOWN_ID)).status).toBe(404);
  });
});

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget } from '../conformance/fixtures-file.js';
import { OpenApiDocument } from '../conformance/openapi-document.js';
import { basisLabel } from '../conformance/rule.js';
import { runSuite } from '../conformance/runner.js';
import { readSettings } from '../conformance/settings.js';
import { FAIR_CHOICES, type FairChoice } from '../conformance/testing/fair-choices.js';
import { FaultyProxy } from '../conformance/testing/faulty-proxy.js';
import { removeDir } from './helpers/server.js';
import { listen, type ListeningServer } from './helpers/in-process.js';

/**
 * The suite's fairness self-test, beside the fault self-test: the faulty proxy's machinery, in front of
 * the reference, makes one at a time a choice the API permits that the reference makes otherwise
 * (testing/fair-choices.ts). At --level api every binding rule the choice touches must pass, so no
 * rule fails a deployment for following the API's letter; what the document's own rules (advisory at
 * that level) said is listed. Same short rate-limit window and per-choice fixtures as the fault
 * self-test.
 */
const WINDOW = '8';
const GET_LIMIT = '8';
const choices = Object.keys(FAIR_CHOICES) as FairChoice[];

describe('conformance fairness self-test: choices the API permits, against the reference at --level api', () => {
  let server: ListeningServer;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    server = await listen({ RATE_WINDOW_SECONDS: WINDOW, RATE_GET_LIMIT: GET_LIMIT });
    doc = OpenApiDocument.load();
  });

  afterAll(async () => {
    await server?.close();
    if (server) await removeDir(server.dataDir);
  });

  it(`passes every binding rule under each of the ${choices.length} choices`, async () => {
    const lines: string[] = [];
    const problems: string[] = [];
    for (const choice of choices) {
      const spec = FAIR_CHOICES[choice];
      const path = join(server.dataDir, `fixtures-fair-${choice}.json`);
      const seeded = await server.admin(['seed', '--out', path, '--acceptance', spec.rules.some((r) => r.startsWith('accept.')) ? '16' : '0']);
      expect(seeded.code, seeded.stderr).toBe(0);
      const fixtures = JSON.parse(await readFile(path, 'utf8'));
      const proxy = new FaultyProxy(server.baseUrl, 'none', { revokedKey: fixtures.keys.revoked, spec });
      const url = await proxy.listen();
      try {
        await writeFile(path, JSON.stringify(fixtures).split(server.baseUrl).join(url));
        const settings = readSettings(
          ['--fixtures', path, '--only', spec.rules.join(','), '--rate-window-seconds', WINDOW, '--get-limit', GET_LIMIT, '--quiet', '--level', 'api'],
          {},
        );
        const run = await runSuite(settings, resolveTarget(settings), doc);
        const ran = run.rules.filter((r) => r.outcome !== 'disabled');
        const binding = ran.filter((r) => r.binding);
        const advisory = ran.filter((r) => !r.binding && r.outcome !== 'pass');
        for (const r of binding.filter((r) => r.outcome !== 'pass'))
          problems.push(`${choice}: ${r.outcome} ${r.id} [${basisLabel(r.basis, r.section)}]: ${r.message}`);
        if (proxy.injected === 0) problems.push(`${choice}: the proxy never made the choice, so the run proves nothing`);
        lines.push(
          `  ${choice.padEnd(30)} ${binding.filter((r) => r.outcome === 'pass').length}/${binding.length} binding rules pass; ${
            advisory.length ? `advisory: ${advisory.map((r) => `${r.outcome} ${r.id}`).join(', ')}` : 'every advisory rule passes too'
          }\n      ${spec.description}`,
        );
      } finally {
        await proxy.close();
      }
    }
    console.log([`conformance fairness self-test: ${choices.length} choices the API permits, at --level api`, ...lines].join('\n'));
    expect(problems).toEqual([]);
  }, 600_000);
});

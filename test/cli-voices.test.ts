import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type ListeningServer } from './helpers/in-process.js';
import { runCli } from './helpers/cli.js';

interface Voice {
  id: string;
  gender: string;
  family: string;
  languages: string[];
  curated: boolean;
}

describe('agent-tts voices', () => {
  let server: ListeningServer;
  let catalog: Voice[];
  beforeAll(async () => {
    server = await listen({}, { seed: false, synth: 'instant' });
    catalog = ((await (await fetch(`${server.voicesUrl}/api/v1/voices`)).json()) as { voices: Voice[] }).voices;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lists the whole public catalog without an API key (--voices-url)', async () => {
    const result = await runCli(['voices', '--json', '--voices-url', server.voicesUrl], { XDG_CONFIG_HOME: '/nonexistent-agent-tts' });
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as { count: number; voices: Voice[] };
    expect(parsed.count).toBe(catalog.length);
    expect(parsed.voices.map((v) => v.id)).toEqual(catalog.map((v) => v.id));
  });

  it('filters by language, gender, family and curated (AGENT_TTS_VOICES_URL)', async () => {
    const env = { AGENT_TTS_VOICES_URL: server.voicesUrl, XDG_CONFIG_HOME: '/nonexistent-agent-tts' };
    const result = await runCli(['voices', '--language', 'fr', '--gender', 'female', '--json'], env);
    const ids = (JSON.parse(result.stdout) as { voices: Voice[] }).voices.map((v) => v.id);
    const expected = catalog.filter((v) => v.gender === 'female' && v.languages.some((l) => l === 'fr' || l.startsWith('fr-'))).map((v) => v.id);
    expect(ids).toEqual(expected);
    expect(ids).toContain('ff_claire');
    expect(ids).toContain('st_f1');

    const table = await runCli(['voices', '--family', 'supertonic', '--curated'], env);
    expect(table.code).toBe(0);
    const rows = table.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/ID\s+GENDER\s+FAMILY\s+LANGUAGES\s+NAME/);
    expect(rows.slice(1).map((r) => r.trim().split(/\s+/)[1])).toEqual([
      'st_f1',
      'st_f2',
      'st_f3',
      'st_f4',
      'st_f5',
      'st_m1',
      'st_m2',
      'st_m3',
      'st_m4',
      'st_m5',
    ]);
  });
});

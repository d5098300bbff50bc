import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_VERSION } from './version.js';

describe('CLIENT_VERSION', () => {
  it('is the package version (it is sent in User-Agent)', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(CLIENT_VERSION).toBe(pkg.version);
  });
});

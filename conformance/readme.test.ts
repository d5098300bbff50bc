import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOG } from './catalog.js';
import { SETTINGS } from './settings.js';

/** The suite's guide, docs/conformance.md, lists the catalog and the settings; the package README links to it. */
const readme = readFileSync(new URL('../docs/conformance.md', import.meta.url), 'utf8');

describe('docs/conformance.md', () => {
  it('lists every rule of the catalog', () => {
    for (const rule of CATALOG) {
      const basis = rule.basis.kind === 'api' ? 'api' : `${rule.basis.kind}: [${rule.basis.decision}](api-rules.md#${rule.basis.decision})`;
      expect(readme, rule.id).toContain(`| \`${rule.id}\` | ${rule.title.replace(/\|/g, '\\|')} | ${rule.section.replace(/\|/g, '\\|')} | ${basis} |`);
    }
    expect(readme).toContain(`${CATALOG.length} rules`);
  });

  it('documents every setting with its variable', () => {
    for (const s of SETTINGS) expect(readme, s.flag).toContain(`| \`--${s.flag}\` | ${s.env ? `\`${s.env}\`` : '—'} |`);
  });
});

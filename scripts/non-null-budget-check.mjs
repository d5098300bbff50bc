// Holds the `!` budget (.non-null-budget.json) to its word that it only falls: `node scripts/non-null-budget-check.mjs <base>`
// compares the budget at <base> (the breaking-change gate's base, .ci/run) with the working tree's and
// exits 1 naming each count that rose. test/non-null-budget.test.ts holds the code to the budget; this
// holds the budget to the past. A base without the file has nothing to compare.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = '.non-null-budget.json';

/** The counts of `after` above those of `before`, as "kind: before → after" (a kind new in `after` counts from 0). */
export function risenBudgets(before, after) {
  return Object.entries(after)
    .filter(([kind, count]) => count > (before[kind] ?? 0))
    .map(([kind, count]) => `${kind}: ${before[kind] ?? 0} → ${count}`);
}

function main() {
  const base = process.argv[2];
  if (!base) {
    console.error('usage: node scripts/non-null-budget-check.mjs <base commit>');
    process.exit(2);
  }
  const root = process.cwd();
  const after = JSON.parse(readFileSync(join(root, FILE), 'utf8'));
  let before;
  try {
    before = JSON.parse(execFileSync('git', ['show', `${base}:${FILE}`], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    console.log(`non-null budget: ${FILE} is not in ${base}; nothing to compare`);
    return;
  }
  const risen = risenBudgets(before, after);
  if (risen.length === 0) {
    console.log(`non-null budget: no count above ${base.slice(0, 12)}'s (${JSON.stringify(after)})`);
    return;
  }
  console.error(`non-null budget: ${FILE} rose since ${base.slice(0, 12)}: ${risen.join(', ')}`);
  console.error('The budget only falls: check the value instead of asserting it (if (x === undefined) throw …, a default, .at() with a check).');
  process.exit(1);
}

if (import.meta.url === `file://${process.argv[1]}`) main();

import { describe, expect, it } from 'vitest';
import { renameOldFlags } from './flag-names.js';

describe('renameOldFlags', () => {
  it('reads a former name as the new one, in both forms, and says so once per name', () => {
    const notices: string[] = [];
    const argv = renameOldFlags(['--output-dir', 'a', '--quiet', '--output-dir=b', '--out=c'], { 'output-dir': 'out-dir' }, (line) => notices.push(line));
    expect(argv).toEqual(['--out-dir', 'a', '--quiet', '--out-dir=b', '--out=c']);
    expect(notices).toEqual(['--output-dir is now --out-dir; the old name still works for now.']);
  });

  it('leaves operands after -- and names that are not former ones alone', () => {
    const notices: string[] = [];
    const argv = renameOldFlags(['--outputs', 'x', '--', '--output'], { output: 'out', constructor: 'x' }, (line) => notices.push(line));
    expect(argv).toEqual(['--outputs', 'x', '--', '--output']);
    expect(renameOldFlags(['--toString'], {}, (line) => notices.push(line))).toEqual(['--toString']);
    expect(notices).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { numberOption, splitCommand } from './args.js';
import { CliError } from './errors.js';

describe('splitCommand', () => {
  it('finds the command after global options and their values', () => {
    expect(splitCommand(['--base-url', 'http://x', 'speak', 'hi', '-o', 'a.mp3'])).toEqual({
      command: 'speak',
      rest: ['--base-url', 'http://x', 'hi', '-o', 'a.mp3'],
    });
    expect(splitCommand(['--json', 'status', 'id'])).toEqual({ command: 'status', rest: ['--json', 'id'] });
  });
  it('has no command for flags only', () => {
    expect(splitCommand(['--help']).command).toBeUndefined();
  });
});

describe('numberOption', () => {
  it('parses numbers and refuses the rest as usage errors', () => {
    expect(numberOption('1.1', '--speed', 'speak')).toBe(1.1);
    expect(numberOption(undefined, '--speed', 'speak')).toBeUndefined();
    for (const bad of ['fast', '', 'NaN', 'Infinity']) {
      expect(() => numberOption(bad, '--speed', 'speak')).toThrow(CliError);
    }
  });
});

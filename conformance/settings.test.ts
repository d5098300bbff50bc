import { describe, expect, it } from 'vitest';
import { helpText } from './help-text.js';
import { readSettings } from './settings.js';

describe('conformance settings: the reports directory', () => {
  it('is --out-dir or TTS_CONFORMANCE_OUT_DIR, as every command names a directory of reports', () => {
    const notices: string[] = [];
    expect(readSettings(['--out-dir', 'r'], {}, (line) => notices.push(line)).outputDir).toBe('r');
    expect(readSettings([], { TTS_CONFORMANCE_OUT_DIR: 'e' }, (line) => notices.push(line)).outputDir).toBe('e');
    expect(readSettings([], {}).outputDir).toBe('conformance-results');
    expect(notices).toEqual([]);
    expect(helpText()).toContain('--out-dir <value>  [TTS_CONFORMANCE_OUT_DIR]');
  });

  it('still reads its former names, --output-dir and TTS_CONFORMANCE_OUTPUT_DIR, each with a notice', () => {
    const notices: string[] = [];
    expect(readSettings(['--output-dir', 'old'], {}, (line) => notices.push(line)).outputDir).toBe('old');
    expect(readSettings([], { TTS_CONFORMANCE_OUTPUT_DIR: 'old-env' }, (line) => notices.push(line)).outputDir).toBe('old-env');
    // The new name wins over the old one.
    expect(readSettings([], { TTS_CONFORMANCE_OUTPUT_DIR: 'old-env', TTS_CONFORMANCE_OUT_DIR: 'new' }).outputDir).toBe('new');
    expect(notices).toEqual([
      '--output-dir is now --out-dir; the old name still works for now.',
      'TTS_CONFORMANCE_OUTPUT_DIR is now TTS_CONFORMANCE_OUT_DIR; the old name still works for now.',
    ]);
  });
});

describe('conformance settings: the extensions beyond the base API', () => {
  it('are optional unless --extensions or TTS_CONFORMANCE_EXTENSIONS says required or none; another value is refused, naming the choices', () => {
    expect(readSettings([], {}).extensions).toBe('optional');
    expect(readSettings(['--extensions', 'required'], {}).extensions).toBe('required');
    expect(readSettings([], { TTS_CONFORMANCE_EXTENSIONS: 'none' }).extensions).toBe('none');
    expect(() => readSettings(['--extensions', 'all'], {})).toThrow('--extensions must be one of optional, required, none, got "all"');
  });
});

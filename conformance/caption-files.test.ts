import { describe, expect, it } from 'vitest';
import { renderSrt, renderWebVtt } from '../src/contract/captions.js';
import { wordTimingsFileExample } from '../src/contract/examples.js';
import { cueDifferences, parseSrt, parseWebVtt } from './caption-files.js';

const file = {
  cues: [
    { start: 0.05, end: 1.2, text: 'Fish & chips <now>.' },
    { start: 1.3, end: 3725.007, text: 'An hour later 😀 still here!' },
  ],
};

describe('caption files read back into cues', () => {
  it('reads the WebVTT and SRT the contract renders into the cues they were rendered from', () => {
    for (const f of [file, wordTimingsFileExample]) {
      const vtt = parseWebVtt(renderWebVtt(f));
      expect(vtt.problems).toEqual([]);
      expect(cueDifferences(f.cues, vtt.cues)).toEqual([]);
      const srt = parseSrt(renderSrt(f));
      expect(srt.problems).toEqual([]);
      expect(cueDifferences(f.cues, srt.cues)).toEqual([]);
    }
    // WebVTT escapes the markup characters; read back, the text is the JSON file's.
    expect(renderWebVtt(file)).toContain('Fish &amp; chips &lt;now&gt;.');
    expect(parseWebVtt(renderWebVtt(file)).cues[0]!.text).toBe('Fish & chips <now>.');
  });

  it('takes what the formats allow: CRLF, a byte-order mark, no cue ids, hours left out, notes, text over two lines', () => {
    const vtt =
      '\uFEFFWEBVTT - captions\r\n\r\nNOTE made by hand\r\n\r\n00:00.050 --> 00:01.200 align:start\r\nFish &amp; chips\r\n&lt;now&gt;.\r\n\r\n01:02:05.007 --> 01:02:05.300\r\nlater\r\n';
    const parsed = parseWebVtt(vtt);
    expect(parsed.problems).toEqual([]);
    expect(parsed.cues).toEqual([
      { start: 0.05, end: 1.2, text: 'Fish & chips\n<now>.' },
      { start: 3725.007, end: 3725.3, text: 'later' },
    ]);
    expect(cueDifferences([{ start: 0.05, end: 1.2, text: 'Fish & chips <now>.' }], parsed.cues.slice(0, 1))).toEqual([]);
  });

  it('names what a player would stumble on', () => {
    expect(parseWebVtt('1\n00:00:00.000 --> 00:00:01.000\nHello\n').problems[0]).toMatch(/does not start with the WEBVTT header/);
    expect(parseWebVtt('WEBVTT\n\n00:00:00,000 --> 00:00:01,000\nHello\n').problems[0]).toMatch(/cue 1 has no valid timing line/);
    expect(parseSrt('1\n00:00:00.000 --> 00:00:01.000\nHello\n').problems[0]).toMatch(/cue 1 has no valid timing line \("hh:mm:ss,ttt/);
    expect(parseSrt('1\n00:00:00,000 --> 00:00:01,000\nHello\n\n3\n00:00:01,000 --> 00:00:02,000\nthere\n').problems).toEqual(['cue 2 is numbered "3", not 2']);
  });

  it('tells cues apart by count, by a millisecond and by text', () => {
    const cues = file.cues;
    expect(cueDifferences(cues, cues.slice(1))).toContain('it has 1 cues; the JSON file has 2');
    expect(cueDifferences(cues, [{ ...cues[0]!, end: 1.201 }, cues[1]!])).toEqual(['cue 1 runs 0.050 s–1.201 s; in the JSON file 0.050 s–1.200 s']);
    expect(cueDifferences(cues, [cues[0]!, { ...cues[1]!, text: 'An hour later' }])[0]).toMatch(/^cue 2 reads "An hour later"; in the JSON file/);
  });
});

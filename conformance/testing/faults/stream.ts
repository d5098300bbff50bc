import { type FaultSpec, setJson } from './common.js';
import { EXTENSION_REQUIRED } from './timings-support.js';

/**
 * Streaming audio (an extension beyond the base API): a stream whose bytes are not the final file, one
 * that sends nothing until the job is done, a deployment without the extension, and stream URLs whose
 * expiry is not the audio URL's.
 */
export const STREAM_FAULTS = {
  'stream-differs-from-file': {
    description: 'streams bytes other than the final file: one byte of the first piece of every stream changed',
    rules: ['stream.equals-audio', 'stream.completed-serves-file'],
    changeStream: (_s, piece, index) => {
      if (index !== 0 || piece.length < 64) return undefined;
      const changed = Buffer.from(piece);
      changed[48] = (changed[48] ?? 0) ^ 0xff;
      return changed;
    },
  },
  'stream-held-until-done': {
    description: 'sends nothing of a stream until the job is done, then the whole file',
    rules: ['stream.bytes-before-completion'],
    holdStream: true,
  },
  'stream-not-offered': {
    description: 'leaves stream_url off every processing answer: not supported, which --extensions required fails',
    rules: ['stream.url-issued'],
    args: EXTENSION_REQUIRED,
    change: (_s, a, json) => {
      if (json?.stream_url === undefined) return false;
      delete json.stream_url;
      return setJson(a, json);
    },
  },
  'stream-expires-later': {
    description: 'issues stream URLs that expire an hour after the audio URL would',
    rules: ['stream.url-issued'],
    change: (_s, a, json) => {
      if (json?.status !== 'processing' || typeof json.stream_url !== 'string') return false;
      const url = new URL(json.stream_url);
      url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
      json.stream_url = url.toString();
      return setJson(a, json);
    },
  },
} satisfies Record<string, FaultSpec>;

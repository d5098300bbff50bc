import { readFile } from 'node:fs/promises';
import { CliError, fileError, usageError } from './errors.js';
import { EXIT } from './exit-codes.js';

export interface InputStream extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?: (mode: boolean) => unknown;
}

/** Reads all of a stream as UTF-8 text. */
async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The text to speak, from exactly one place: the argument, `-f <file>`, or standard input (no
 * argument, or `-`). Standard input that is a terminal is refused rather than waited on, since a
 * user who forgot the text would otherwise see the tool hang.
 */
export async function readSpeechText(args: { text?: string; file?: string }, stdin: InputStream): Promise<{ text: string; from: string }> {
  if (args.text !== undefined && args.text !== '-' && args.file !== undefined) {
    throw usageError('Give the text either as an argument or with -f, not both', 'speak');
  }
  let text: string;
  let from: string;
  if (args.file !== undefined && args.file !== '-') {
    try {
      text = await readFile(args.file, 'utf8');
    } catch (error) {
      throw fileError('read the text file', args.file, error);
    }
    from = args.file;
  } else if (args.text !== undefined && args.text !== '-') {
    text = args.text;
    from = 'the argument';
  } else {
    if (stdin.isTTY) {
      throw usageError('No text given: pass it as an argument, with -f <file>, or on standard input', 'speak');
    }
    text = await readAll(stdin);
    from = 'standard input';
  }
  if (text.trim() === '') {
    throw new CliError(`The text from ${from} is empty`, EXIT.USAGE, 'Give some text to speak.', 'USAGE');
  }
  return { text, from };
}

/**
 * Reads a secret: the first line of standard input when it is piped, or a prompt on a terminal
 * with echo off, so the key never shows on screen, in shell history or in process listings.
 */
export async function readSecret(prompt: string, stdin: InputStream, stderr: NodeJS.WritableStream): Promise<string> {
  if (!stdin.isTTY || !stdin.setRawMode) {
    const text = await readAll(stdin);
    return (text.split(/\r?\n/).find((line) => line.trim() !== '') ?? '').trim();
  }
  stderr.write(prompt);
  const setRawMode = stdin.setRawMode.bind(stdin);
  setRawMode(true);
  stdin.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      const onData = (chunk: Buffer | string) => {
        for (const ch of chunk.toString('utf8')) {
          if (ch === '\r' || ch === '\n' || ch === '\u0004') {
            stdin.off('data', onData);
            resolve(value.trim());
            return;
          }
          if (ch === '\u0003') {
            stdin.off('data', onData);
            reject(new CliError('Cancelled', EXIT.INTERRUPTED, undefined, 'INTERRUPTED'));
            return;
          }
          if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
          else if (ch >= ' ') value += ch;
        }
      };
      stdin.on('data', onData);
    });
  } finally {
    setRawMode(false);
    stdin.pause();
    stderr.write('\n');
  }
}

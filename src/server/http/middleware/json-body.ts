import type { IncomingMessage } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { LIMITS } from '@agent-tts/contract/limits.js';
import { BODY_CUT_SHORT_MESSAGE, ClientClosedError, AnsweredByListenerError } from '../../domain/errors.js';
import { ApiError, invalidRequest } from '../api-error.js';
import type { AppContext, AppEnv } from '../context.js';
import { answeredByListener } from '../socket-requests.js';
import { discardRest } from '../unread-body.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * Why the body stopped short, if it did: the listener ended it and answered (the server's request
 * timeout, a half-close mid-body), or the client's connection closed first. Under the Node adapter
 * the request's IncomingMessage tells (destroyed, not complete); a Request made in process has only
 * its signal.
 */
function bodyCutShort(c: AppContext): AnsweredByListenerError | 'client' | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming) {
    const answered = answeredByListener(incoming.socket);
    if (answered) return new AnsweredByListenerError(answered.status as 400 | 408, answered.why);
    return incoming.destroyed && !incoming.complete ? 'client' : undefined;
  }
  return c.req.raw.signal.aborted ? 'client' : undefined;
}

/**
 * Nesting of arrays and objects deeper than this is refused before the body is parsed. A valid request
 * is one object of strings and numbers (depth 1); the margin is for clients that send more fields,
 * which are ignored. JSON.parse of a body nested millions of levels deep costs a second and hundreds
 * of megabytes; counting brackets costs neither.
 */
const MAX_JSON_DEPTH = 64;

/** Counts the nesting of a JSON text as its bytes arrive, brackets inside strings excepted. */
class NestingCounter {
  private depth = 0;
  private inString = false;
  private escaped = false;

  /** Reads `bytes`; false once the nesting went deeper than `max`. */
  within(bytes: Uint8Array, max: number): boolean {
    let { depth, inString, escaped } = this;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (b === 0x5c) escaped = true;
        else if (b === 0x22) inString = false;
      } else if (b === 0x22) inString = true;
      else if (b === 0x5b || b === 0x7b) {
        depth += 1;
        if (depth > max) return false;
      } else if (b === 0x5d || b === 0x7d) depth -= 1;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return true;
  }
}

const tooDeep = () =>
  invalidRequest(
    `The request body nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep, which no request needs: the body is one JSON object of text, voice, speed and language (docs/api-rules.md#limits).`,
  );

/**
 * Reads the body up to `maxBytes` and MAX_JSON_DEPTH levels of nesting; past either it refuses the
 * request. The rest of a refused body is read and dropped while the answer goes out (see
 * unread-body.ts), so the client can read the answer.
 * A read that fails because the client went away (on either path below) is a ClientClosedError: the
 * client's doing, answered 499 by the error handler; one the listener ended and answered is an
 * AnsweredByListenerError (408 or 400); any other failure is left as it is.
 */
async function readLimited(request: Request, maxBytes: number, cutShort: () => AnsweredByListenerError | 'client' | undefined): Promise<Uint8Array> {
  const failed = (error: unknown): never => {
    const why = cutShort();
    if (why instanceof AnsweredByListenerError) throw why;
    throw why === 'client' ? new ClientClosedError(BODY_CUT_SHORT_MESSAGE, {}, { cause: error }) : error;
  };
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    if (request.body) discardRest(request.body.getReader());
    throw tooLarge(maxBytes);
  }
  // A declared length within the limit bounds the body (Node's parser delivers no more than it): read it
  // whole, straight from the socket's buffers. Reading it as a web stream costs a Request object, a
  // stream and a few turns of the event loop (0.65 ms of an inline request's time on 2 busy cores).
  if (Number.isSafeInteger(declared) && declared >= 0) {
    const body = new Uint8Array(await request.arrayBuffer().catch(failed));
    // A Request made in process may carry more than it declares.
    if (body.byteLength > maxBytes) throw tooLarge(maxBytes);
    if (!new NestingCounter().within(body, MAX_JSON_DEPTH)) throw tooDeep();
    return body;
  }
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const nesting = new NestingCounter();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(failed);
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      discardRest(reader);
      throw tooLarge(maxBytes);
    }
    if (!nesting.within(value, MAX_JSON_DEPTH)) {
      discardRest(reader);
      throw tooDeep();
    }
    parts.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.byteLength;
  }
  return body;
}

// Only `text` can legitimately be this large, so the answer is the one a too-long text gets.
const tooLarge = (maxBytes: number) =>
  new ApiError(
    'TEXT_TOO_LONG',
    `The request body is larger than ${maxBytes} bytes; text is limited to ${LIMITS.textMaxChars} characters. Split the text into smaller chunks.`,
  );

/**
 * Reads a JSON request body within `maxBytes` and hands its text to the route's validator (through
 * Hono's body cache), which parses it and checks it against the contract's schema. Refuses, as
 * INVALID_REQUEST, a wrong content type, invalid UTF-8 and nesting deeper than MAX_JSON_DEPTH; a body
 * over the limit as TEXT_TOO_LONG.
 * Hono's own reader would take a body of any size into memory.
 */
export function jsonBody(maxBytes: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) throw invalidRequest('Content-Type must be application/json.');
    const bytes = await readLimited(c.req.raw, maxBytes, () => bodyCutShort(c));
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw invalidRequest('The request body is not valid UTF-8.');
    }
    // Hono keeps body readers' results as promises; its typing says otherwise.
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
    await next();
  };
}

import { LIMITS } from '../../contract/limits.js';
import { TEXT_TOO_LONG_REASON, TtsRequest, type TtsRequestBody } from '../../contract/schemas.js';
import { ApiError, invalidRequest } from './errors.js';
import { discardRest } from './unread-body.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads the body up to `maxBytes`; past that it refuses the request. The rest of a refused body is
 * read and dropped while the answer goes out (see unread-body.ts), so the client can read the answer.
 */
async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    if (request.body) discardRest(request.body.getReader());
    throw tooLarge(maxBytes);
  }
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      discardRest(reader);
      throw tooLarge(maxBytes);
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

function describeIssues(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : 'body'}: ${i.message}`)
    .join('; ');
}

/**
 * Parses a POST body into a valid request or throws the error the spec gives: INVALID_REQUEST for a
 * wrong content type, invalid UTF-8, malformed JSON or a bad field; TEXT_TOO_LONG for over 500,000
 * characters (code points). Unknown fields are ignored.
 */
export async function readTtsRequest(request: Request, maxBytes: number): Promise<TtsRequestBody> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw invalidRequest('Content-Type must be application/json.');
  }
  const bytes = await readLimited(request, maxBytes);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw invalidRequest('The request body is not valid UTF-8.');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalidRequest('The request body is not valid JSON.');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw invalidRequest('The request body must be a JSON object with a "text" field.');
  }
  const parsed = TtsRequest.safeParse(json);
  if (!parsed.success) {
    const tooLong = parsed.error.issues.find(
      (i) => i.code === 'custom' && (i as { params?: { reason?: string } }).params?.reason === TEXT_TOO_LONG_REASON,
    );
    if (tooLong) throw new ApiError('TEXT_TOO_LONG', `${tooLong.message}. Split the text into smaller chunks.`);
    throw invalidRequest(describeIssues(parsed.error.issues));
  }
  return parsed.data;
}

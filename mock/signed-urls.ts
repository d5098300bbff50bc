import { AudioQuery } from '@agent-tts/contract/parameter-schemas.js';

/** What the mock's front needs to know of a signed URL (audio or captions) and of the `Prefer` sent with it. */

/** The status a `Prefer` header asks Prism for (`code=NNN`), if any. */
export const preferredCode = (prefer: string | undefined) => (prefer === undefined ? undefined : /(?:^|[\s,;])code=(\d{3})/.exec(prefer)?.[1]);

/** Whether `Prefer` names an error status (anything but the file itself, 200 or 206). */
export function prefersError(prefer: string | undefined): prefer is string {
  const code = preferredCode(prefer);
  return prefer !== undefined && code !== undefined && code !== '200' && code !== '206';
}

/** Whether the query has `expires` and `sig` of the issued form (the signature itself is not checked: the mock knows no secret). */
export const wellFormedQuery = (url: URL) =>
  AudioQuery.safeParse({ expires: url.searchParams.get('expires') ?? undefined, sig: url.searchParams.get('sig') ?? undefined }).success;

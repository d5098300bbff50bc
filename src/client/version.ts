/** Sent in User-Agent. Kept equal to package.json's version by a unit test (importing JSON would tie the browser build to it). */
export const CLIENT_VERSION = '0.1.0';
export const USER_AGENT = `agent-tts-client/${CLIENT_VERSION}`;

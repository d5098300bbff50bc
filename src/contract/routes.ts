/** The @hono/zod-openapi route definitions of the API's operations, in the document's order. */
import { getCaptionsRoute } from './caption-routes.js';
import { getJobRoute, postJobRoute } from './job-routes.js';
import { getAudioRoute, listVoicesRoute } from './public-routes.js';
import { getStreamRoute } from './stream-routes.js';

export { getAudioRoute, getCaptionsRoute, getJobRoute, getStreamRoute, listVoicesRoute, postJobRoute };

export const routes = [postJobRoute, getJobRoute, getAudioRoute, getStreamRoute, getCaptionsRoute, listVoicesRoute] as const;

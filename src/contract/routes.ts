/** The @hono/zod-openapi route definitions of the API's operations, in the document's order. */
import { getCaptionsRoute } from './caption-routes.js';
import { getJobRoute, postJobRoute } from './job-routes.js';
import { getAudioRoute, listVoicesRoute } from './public-routes.js';

export { getAudioRoute, getCaptionsRoute, getJobRoute, listVoicesRoute, postJobRoute };

export const routes = [postJobRoute, getJobRoute, getAudioRoute, getCaptionsRoute, listVoicesRoute] as const;

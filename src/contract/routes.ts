/** The @hono/zod-openapi route definitions of the API's four operations, in the document's order. */
import { getJobRoute, postJobRoute } from './job-routes.js';
import { getAudioRoute, listVoicesRoute } from './public-routes.js';

export { getAudioRoute, getJobRoute, listVoicesRoute, postJobRoute };

export const routes = [postJobRoute, getJobRoute, getAudioRoute, listVoicesRoute] as const;

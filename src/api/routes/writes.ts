// Write routes forwarded to the relayer (owned by the relayer/writes work). Placeholder until implemented.
import { OpenAPIHono } from "@hono/zod-openapi";
export const writeRoutes = new OpenAPIHono();

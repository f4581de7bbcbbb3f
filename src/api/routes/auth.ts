// Sign-in with Ethereum (owned by the relayer/writes work). Placeholder until implemented.
import { OpenAPIHono } from "@hono/zod-openapi";
export const authRoutes = new OpenAPIHono();

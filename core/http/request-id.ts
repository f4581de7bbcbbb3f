/** hono/request-id's rule, for hot paths that answer below Hono: a client's id is kept when short and plain, else replaced. */
import { randomUUID } from "node:crypto";

export const requestIdOf = (given: string | string[] | undefined): string =>
  typeof given === "string" && given && given.length <= 255 && !/[^\w\-=]/.test(given) ? given : randomUUID();

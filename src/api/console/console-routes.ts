import type { FastifyInstance, FastifyReply } from "fastify";
import { TollgateError } from "../../errors/index.js";
import { type IConsoleFile, readConsoleFiles } from "./console-files.js";

/**
 * The console's Content-Security-Policy: its own scripts, styles and API only. No inline script or
 * style (every element is built with DOM calls and styled by class), so an approval's input or a
 * model's reply that carries markup cannot run; no other host is ever contacted; no page may frame it
 * (a decision button under a transparent frame would be clickjacking).
 */
export const consoleContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const securityHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": consoleContentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  // The page holds nothing secret (the token is in the tab's session storage), but revalidating
  // keeps every tab on the files this server has.
  "cache-control": "no-cache",
};

/**
 * Serves the console under `/console/`: `/console` redirects there (its links and API calls are
 * relative, so it works behind a proxy that mounts the API under a path), `/console/` is the page, and
 * `/console/<path>` its files. Public: the page asks for a token and every API call carries it.
 */
export async function registerConsole(app: FastifyInstance): Promise<void> {
  const files = await readConsoleFiles();
  app.get("/console", async (_request, reply) => reply.redirect("/console/", 301));
  app.get<{ Params: { "*": string } }>("/console/*", async (request, reply) => {
    const path = request.params["*"] === "" ? "index.html" : request.params["*"];
    const file = files.get(path);
    if (file === undefined) {
      throw new TollgateError("TG_ROUTE_NOT_FOUND", `The console has no file ${path}.`);
    }
    return send(reply, file, request.headers["if-none-match"]);
  });
}

function send(reply: FastifyReply, file: IConsoleFile, ifNoneMatch: string | undefined): FastifyReply {
  reply.headers(securityHeaders).header("etag", file.etag);
  if (ifNoneMatch === file.etag) return reply.code(304).send();
  return reply.type(file.contentType).send(file.body);
}

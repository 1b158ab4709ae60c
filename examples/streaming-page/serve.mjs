// Serves the page and passes /v1/runs/:runId/events on to the Tollgate API with the token added here,
// so the browser never holds it. `node serve.mjs` with TOLLGATE_URL and TOLLGATE_TOKEN set.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";

const files = { "/": "index.html", "/page.js": "page.js" };
const types = { "index.html": "text/html; charset=utf-8", "page.js": "text/javascript; charset=utf-8" };

/** Starts the page's server; resolves with its URL. */
export async function startStreamingPage({ apiUrl, token, port = 0, host = "127.0.0.1" }) {
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://page.invalid");
    const file = files[url.pathname];
    if (file) {
      const body = await readFile(fileURLToPath(new URL(file, import.meta.url)));
      response.writeHead(200, { "content-type": types[file] });
      response.end(body);
      return;
    }
    if (!/^\/v1\/runs\/[^/]+\/events$/.test(url.pathname)) {
      response.writeHead(404).end();
      return;
    }
    const upstream = new AbortController();
    // The browser left: stop reading (the run goes on; only POST /v1/runs/:id/cancel stops it).
    response.once("close", () => upstream.abort());
    try {
      const answer = await fetch(`${apiUrl}${url.pathname}${url.search}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: upstream.signal,
      });
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (answer.body)
        Readable.fromWeb(answer.body)
          .on("error", () => response.destroy())
          .pipe(response);
      else response.end();
    } catch {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    }
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const { port: actualPort } = server.address();
  return {
    url: `http://${host}:${actualPort}`,
    close: () => new Promise((resolve) => server.close(resolve) && server.closeAllConnections()),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const page = await startStreamingPage({
    apiUrl: process.env.TOLLGATE_URL ?? "http://127.0.0.1:3000",
    token: process.env.TOLLGATE_TOKEN ?? "",
    port: Number(process.env.PORT ?? 8080),
  });
  console.log(`open ${page.url}/?runId=<a run id>`);
}

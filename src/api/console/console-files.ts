import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The console's files: plain HTML, CSS and JavaScript modules under `console/` at the package root (the
 * same relative place from `src/` and `dist/`), served as they are, so there is no build step. They are
 * read once, when the API is built: a few tens of kilobytes, and a request never touches the disk.
 */
export const consoleDirectory = fileURLToPath(new URL("../../../console/", import.meta.url));

/** The types served; a file of any other kind in the directory is not served. */
const contentTypes: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

export interface IConsoleFile {
  body: Buffer;
  contentType: string;
  /** A strong validator: the browser revalidates and gets 304 until the file changes. */
  etag: string;
}

/** Files by their path under the directory, with `/` separators (`index.html`, `js/app.js`). */
export async function readConsoleFiles(directory = consoleDirectory): Promise<Map<string, IConsoleFile>> {
  const files = new Map<string, IConsoleFile>();
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    const contentType = contentTypes[extname(entry.name)];
    if (!entry.isFile() || contentType === undefined) continue;
    const path = join(entry.parentPath, entry.name);
    const body = await readFile(path);
    const digest = createHash("sha256").update(body).digest("base64url").slice(0, 22);
    files.set(relative(directory, path).split(sep).join("/"), { body, contentType, etag: `"${digest}"` });
  }
  return files;
}

// Every call goes to this server (relative URLs: the console is served at <api>/console/, so `../v1/`
// is the API however a proxy mounts it) with the token as a bearer header, or with none for the routes
// whose credential is in the body (an approval link's token).

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {any} [details]
   */
  constructor(status, code, message, details) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** The API's base URL, from the page's own: `/console/` → `/`. */
export const apiBase = new URL("../", document.baseURI);

/**
 * @param {string} [token]  absent: no Authorization header
 * @param {(error: ApiError) => void} [onUnauthorized]  told of any 401 (the token was revoked or has
 *   expired) before the call throws it, so the session can end wherever the call was made
 */
export function createApi(token, onUnauthorized) {
  /** @type {Record<string, string>} */
  const headers =
    token === undefined
      ? { accept: "application/json" }
      : { authorization: `Bearer ${token}`, accept: "application/json" };

  /**
   * @param {string} method
   * @param {string} path  relative to the API, e.g. `v1/approvals`
   * @param {unknown} [body]
   */
  async function call(method, path, body) {
    const response = await fetch(new URL(path, apiBase), {
      method,
      headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
    });
    const text = await response.text();
    const parsed = text === "" ? undefined : safeParse(text);
    if (!response.ok) {
      const error = parsed?.error;
      const thrown = new ApiError(
        response.status,
        error?.code ?? `HTTP_${response.status}`,
        error?.message ?? `The server answered ${response.status}.`,
        error?.details,
      );
      if (response.status === 401) onUnauthorized?.(thrown);
      throw thrown;
    }
    return parsed;
  }

  return {
    token,
    onUnauthorized,
    /** @param {string} path */
    get: (path) => call("GET", path),
    /** @param {string} path @param {unknown} [body] */
    post: (path, body) => call("POST", path, body ?? {}),
  };
}

/** @typedef {ReturnType<typeof createApi>} TApi */

function safeParse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A query string of the filters that are set.
 * @param {Record<string, string | undefined>} filters
 */
export function queryOf(filters) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) query.set(name, value);
  const text = query.toString();
  return text === "" ? "" : `?${text}`;
}

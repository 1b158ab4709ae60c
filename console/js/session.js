// The token lives in this tab's session storage only: it is gone when the tab closes, it is never
// in a cookie (so no other site's request carries it) and never in a URL (so no log or Referer has it).

const tokenKey = "tollgate.token";

export function storedToken() {
  try {
    return sessionStorage.getItem(tokenKey);
  } catch {
    return null;
  }
}

/** @param {string} token */
export function storeToken(token) {
  sessionStorage.setItem(tokenKey, token);
}

export function forgetToken() {
  sessionStorage.removeItem(tokenKey);
}

// The console: signs in with a token, then shows the inbox, one approval, the history, the runs or one
// run, chosen by the URL's hash (#/inbox, #/approvals/<id>, #/history, #/runs, #/runs/<id>) so the back
// button and links work. Each section needs its access (approvals:read, or runs:read for the runs). A signed
// approval link (#/link/<token>, from a chat message or an email) needs no sign-in: its token is the
// credential, and its page decides nothing until its button is pressed. A 401 from any call (a token
// revoked or expired while the page is open) ends the session: back to sign-in, saying why.

import { createApi } from "./api.js";
import { announce, replaceChildren } from "./dom.js";
import { followApprovalEvents } from "./event-stream.js";
import { startLiveTimes } from "./live-times.js";
import { followPendingCount } from "./pending-badge.js";
import { forgetToken, storedToken } from "./session.js";
import { renderApproval } from "./views/approval.js";
import { renderHistory } from "./views/history.js";
import { renderInbox } from "./views/inbox.js";
import { linkTokenOf, renderLink } from "./views/link.js";
import { renderRun } from "./views/run.js";
import { renderRuns } from "./views/runs.js";
import { renderSignIn } from "./views/sign-in.js";

/**
 * @typedef {{
 *   api: import("./api.js").TApi,
 *   me: { subject: string, tenant: string, roles: string[], access: string[] },
 *   tools: Map<string, { name: string, description: string, inputSchema: any, policyKind?: string, mayNeedApproval?: boolean, readOnly?: boolean }>,
 *   events: EventTarget,
 *   may: (access: string) => boolean,
 * }} TContext
 */

const main = /** @type {HTMLElement} */ (document.getElementById("main"));
/** @type {TContext | undefined} */
let context;
let sessionAbort = new AbortController();
let cleanup = () => {};

/** Said on the sign-in page when the server stops accepting the session's token. */
export const tokenRefusedMessage = "Your token was revoked or expired; sign in again.";

async function start() {
  startLiveTimes(main);
  document.getElementById("sign-out")?.addEventListener("click", signOut);
  window.addEventListener("hashchange", () => void route());
  if (showLink()) return;
  await openSession();
}

/** Signs in with the token this tab kept, or asks for one. */
async function openSession() {
  const token = storedToken();
  if (token === null) {
    showSignIn();
    return;
  }
  await signIn(token, () => showSignIn(tokenRefusedMessage));
}

function showSignIn(message) {
  cleanup();
  setSignedIn(undefined);
  renderSignIn(main, { message, onToken: (token) => signIn(token) });
}

/**
 * Reads who the token is and the tool catalogue; on success the session starts.
 * @param {string} token
 * @param {(error: unknown) => void} [onRefused]
 */
export async function signIn(token, onRefused) {
  // Checked without the session's 401 handler: a refused token here is the sign-in form's to report.
  const check = createApi(token);
  try {
    const [me, catalogue] = await Promise.all([check.get("v1/me"), check.get("v1/tools")]);
    const tools = new Map(catalogue.tools.map((tool) => [tool.name, tool]));
    const events = new EventTarget();
    /** @type {TContext} */
    const current = {
      api: createApi(token, () => endRefusedSession(current)),
      me,
      tools,
      events,
      may: (access) => me.access.includes(access),
    };
    context = current;
  } catch (error) {
    if (onRefused) onRefused(error);
    else throw error;
    return;
  }
  setSignedIn(context);
  sessionAbort = new AbortController();
  if (context.may("approvals:read")) {
    startEvents(context, sessionAbort.signal);
    followPendingCount(context.api, context.events, sessionAbort.signal);
  }
  if (location.hash === "" || location.hash === "#/" || location.hash === "#/sign-in")
    location.hash = context.may("approvals:read") || !context.may("runs:read") ? "#/inbox" : "#/runs";
  await route();
}

function startEvents(current, signal) {
  void followApprovalEvents(
    current.api,
    (event) => current.events.dispatchEvent(new CustomEvent("approval-event", { detail: event })),
    (state) => {
      document.body.dataset.live = state;
      if (state === "reconnecting") announce("Connection lost; reconnecting…");
    },
    signal,
  );
}

/** The server refused the session's token (revoked or expired): it is forgotten, and sign-in says why. */
function endRefusedSession(current) {
  if (context !== current) return;
  sessionAbort.abort();
  forgetToken();
  context = undefined;
  showSignIn(tokenRefusedMessage);
}

function signOut() {
  sessionAbort.abort();
  forgetToken();
  context = undefined;
  location.hash = "#/sign-in";
  showSignIn("Signed out. The token was removed from this tab.");
}

function setSignedIn(current) {
  const nav = /** @type {HTMLElement} */ (document.getElementById("nav"));
  const who = /** @type {HTMLElement} */ (document.getElementById("who"));
  const signOutButton = /** @type {HTMLElement} */ (document.getElementById("sign-out"));
  nav.hidden = current === undefined || !(current.may("approvals:read") || current.may("runs:read"));
  for (const link of nav.querySelectorAll("a")) {
    if (link instanceof HTMLElement)
      link.hidden = current !== undefined && !current.may(accessOfSection(link.dataset.section));
  }
  signOutButton.hidden = current === undefined;
  if (current === undefined) {
    who.textContent = "";
    return;
  }
  const { subject, tenant, access } = current.me;
  const decides = access.includes("approvals:decide");
  who.textContent = `${subject} · ${tenant === "*" ? "all tenants" : tenant} · ${decides ? "may decide" : "read only"}`;
  who.title = `Access: ${access.join(", ") || "none"}`;
}

/** Shows the link's confirmation page when the hash is a link; whether it was one. */
function showLink() {
  const token = linkTokenOf(location.hash);
  if (token === undefined) return false;
  cleanup();
  cleanup = () => {};
  renderLink(main, token);
  main.focus({ preventScroll: true });
  return true;
}

async function route() {
  if (showLink()) return;
  if (context === undefined) {
    // Left a link's page for the console: sign in as usual.
    if (!main.querySelector(".sign-in")) await openSession();
    return;
  }
  cleanup();
  cleanup = () => {};
  // A listing's filters follow a "?" (see filters.js): the path alone picks the view.
  const hash = location.hash.replace(/^#\/?/, "").split("?")[0] ?? "";
  const [section = "inbox", id] = hash.split("/").map((part) => decodeURIComponent(part));
  for (const link of document.querySelectorAll("#nav a")) {
    if (link instanceof HTMLElement) link.toggleAttribute("aria-current", link.dataset.section === section);
  }
  if (!context.may(accessOfSection(section))) {
    replaceChildren(main, noAccess(context, accessOfSection(section)));
    return;
  }
  if (section === "runs" && id) cleanup = renderRun(main, context, id);
  else if (section === "runs") cleanup = renderRuns(main, context);
  else if (section === "approvals" && id) cleanup = renderApproval(main, context, id);
  else if (section === "history") cleanup = renderHistory(main, context);
  else cleanup = renderInbox(main, context);
  main.focus({ preventScroll: true });
}

/** What a section needs: the runs need runs:read, the rest approvals:read. */
function accessOfSection(section) {
  return section === "runs" ? "runs:read" : "approvals:read";
}

function noAccess(current, access) {
  const paragraph = document.createElement("p");
  paragraph.className = "notice";
  const what = access === "runs:read" ? "runs" : "approvals";
  paragraph.textContent = `Signed in as ${current.me.subject}, whose token may not read ${what} (it holds: ${current.me.access.join(", ") || "nothing"}).`;
  return paragraph;
}

void start();

// Relative times that move while the page is open: "waiting 5 s" and "expires in 45 s" are written
// when a view draws, then rewritten every second from the instants kept on their elements, and an
// approval about to expire gets the `expiring-soon` class the moment it is. One timer serves every view:
// a view only marks its elements.

import { clockTime, expiresIn, isExpiringSoon, waited } from "./format.js";

const tickMs = 1000;

/**
 * Marks the requested and expires lines of `approvalFacts` (their `fact-requested` and `fact-expires`
 * cells) as live, while the approval is pending. Returns the element, to be used inline.
 * @param {HTMLElement} facts
 * @param {{ status: string, requestedAt: number, expiresAt: number }} approval
 */
export function liveFacts(facts, approval) {
  if (approval.status !== "pending") return facts;
  const requested = facts.querySelector(".fact-requested");
  if (requested instanceof HTMLElement) requested.dataset.liveWaited = String(approval.requestedAt);
  const expires = facts.querySelector(".fact-expires");
  if (expires instanceof HTMLElement) {
    expires.dataset.liveExpires = String(approval.expiresAt);
    markExpiry(expires, approval);
  }
  return facts;
}

/**
 * Gives an element (an inbox card) the `expiring-soon` class now and whenever its approval gets close.
 * @param {HTMLElement} element
 * @param {{ requestedAt: number, expiresAt: number }} approval
 */
export function markExpiry(element, approval) {
  element.dataset.requestedAt = String(approval.requestedAt);
  element.dataset.expiresAt = String(approval.expiresAt);
  element.classList.toggle("expiring-soon", isExpiringSoon(approval));
  return element;
}

/** Rewrites every live time under `root` for `now`. */
export function refreshLiveTimes(root, now = Date.now()) {
  for (const element of root.querySelectorAll("[data-live-waited]")) {
    const at = Number(/** @type {HTMLElement} */ (element).dataset.liveWaited);
    setText(element, `${clockTime(at)} (${waited(at, now)})`);
  }
  for (const element of root.querySelectorAll("[data-live-expires]")) {
    const at = Number(/** @type {HTMLElement} */ (element).dataset.liveExpires);
    setText(element, `${clockTime(at)} (${expiresIn(at, now)})`);
  }
  for (const element of root.querySelectorAll("[data-expires-at]")) {
    const { requestedAt, expiresAt } = /** @type {HTMLElement} */ (element).dataset;
    const soon = isExpiringSoon({ requestedAt: Number(requestedAt), expiresAt: Number(expiresAt) }, now);
    element.classList.toggle("expiring-soon", soon);
  }
}

/** Keeps the live times under `root` current until the returned function is called. */
export function startLiveTimes(root) {
  const timer = setInterval(() => refreshLiveTimes(root), tickMs);
  return () => clearInterval(timer);
}

/** Writes only a changed text, so a screen reader or a text selection is not disturbed every second. */
function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

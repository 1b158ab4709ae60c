// Elements are built with DOM calls and text nodes only, never from HTML strings: an approval's input,
// a model's reply or a tool's output may hold markup, and here it is always text. (The page's
// Content-Security-Policy forbids inline script too; this keeps markup from even rendering.)

/**
 * An element with attributes and children. `class`, `text`, `on<event>` and boolean attributes are
 * understood; children are nodes, strings (as text) or nothing (skipped).
 * @param {string} tag
 * @param {Record<string, unknown>} [attributes]
 * @param {...unknown} children  nodes, text, nothing, or (nested) arrays of them
 * @returns {HTMLElement}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") element.className = String(value);
    else if (name === "text") element.textContent = String(value);
    else if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    } else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

/**
 * @param {Element} parent
 * @param {Array<unknown>} children
 */
function append(parent, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.append(child);
    else parent.append(document.createTextNode(String(child)));
  }
}

/**
 * Replaces an element's children.
 * @param {Element} parent
 * @param {...unknown} children
 */
export function replaceChildren(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
}

/** JSON as a reviewer reads it: indented, in a preformatted block. */
export function jsonBlock(value, className = "json") {
  return h("pre", { class: className, text: JSON.stringify(value, null, 2) ?? "undefined" });
}

/** A short line for the live region, read out by screen readers and shown at the foot of the page. */
export function announce(text) {
  const status = document.getElementById("live-status");
  if (status) status.textContent = text;
}

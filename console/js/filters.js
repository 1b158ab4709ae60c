// A listing's filters live in the page's URL, after the hash's path (`#/inbox?tool=refund&user=iv`),
// so a reload, a bookmark or a link shows the same list. They are written with replaceState: typing
// in a filter adds no back-button step and fires no hashchange (the view is not drawn again).

/** The filters in the current URL. */
export function filtersInUrl() {
  const hash = location.hash;
  const at = hash.indexOf("?");
  return new URLSearchParams(at === -1 ? "" : hash.slice(at + 1));
}

/**
 * Writes the filters that are set into the URL, keeping its path.
 * @param {Record<string, string>} filters
 */
export function putFiltersInUrl(filters) {
  const path = location.hash.split("?")[0] || "#/inbox";
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) query.set(name, value);
  const text = query.toString();
  const url = new URL(location.href);
  url.hash = text === "" ? path : `${path}?${text}`;
  if (url.href !== location.href) history.replaceState(history.state, "", url);
}

/**
 * The tools a reviewer can meet in a listing: those whose calls can wait for a human. An older API
 * without `mayNeedApproval` is read from its policy kind.
 * @param {Map<string, { name: string, policyKind?: string, mayNeedApproval?: boolean }>} tools
 */
export function approvalToolNames(tools) {
  return [...tools.values()]
    .filter((tool) =>
      tool.mayNeedApproval !== undefined
        ? tool.mayNeedApproval
        : tool.policyKind === "NEEDS_APPROVAL" || tool.policyKind === "PREDICATE",
    )
    .map((tool) => tool.name)
    .sort();
}

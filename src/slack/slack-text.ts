/**
 * Text for Slack's `mrkdwn`: `&`, `<` and `>` escaped as Slack asks, so a model's input or a policy's
 * reason can neither mention anyone (`<!channel>`, `<@U123>`) nor make a link. Every text of ours that
 * carries data passes through here.
 */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** At most `max` characters, the last one an ellipsis when cut (Slack refuses a block over its limit). */
export function truncated(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A code block of JSON, escaped and cut to fit a section's 3,000 characters. */
export function jsonCodeBlock(value: unknown, max = 2_900): string {
  const json = JSON.stringify(value, null, 2) ?? "null";
  return `\`\`\`${truncated(escapeMrkdwn(json), max - 6)}\`\`\``;
}

/**
 * A time as Slack shows it in each reader's own time zone (`<!date^…>`), with UTC as the fallback for
 * clients that cannot.
 */
export function slackDate(epochMs: number): string {
  const fallback = `${new Date(epochMs).toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return `<!date^${Math.floor(epochMs / 1000)}^{date_short_pretty} {time}|${fallback}>`;
}

import { describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import { refusalText } from "../../../src/slack/index.js";

describe("what a Slack user is told of a refusal", () => {
  it("the reason and its code", () => {
    const error = new TollgateError("TG_FORBIDDEN", 'The approver rule "leads" does not name you.');
    expect(refusalText(error)).toBe(
      'Not decided: The approver rule "leads" does not name you. (TG_FORBIDDEN)',
    );
  });

  it("of a fault of ours, only that there was one: its text describes internals", () => {
    const error = new TollgateError("TG_STATE_CORRUPT", "run:abc state is not JSON at offset 12");
    expect(refusalText(error)).toBe(
      "Not decided: an internal error occurred; the server log has the detail. (TG_STATE_CORRUPT)",
    );
  });
});

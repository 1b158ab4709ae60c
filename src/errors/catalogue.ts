/**
 * Every error Tollgate raises to its callers, with a stable code and an HTTP status. Codes are never
 * reused or renamed; branch on the code, never on the message. docs/ERRORS.md lists them (a test checks).
 */
export const errorCatalogue = {
  TG_INVALID_TOOL_DEFINITION: {
    status: 500,
    summary: "A tool definition breaks the contract (name, schema, limits).",
  },
  TG_DUPLICATE_TOOL_NAME: { status: 500, summary: "Two tools share a name." },
  TG_INVALID_GATEWAY: {
    status: 500,
    summary: "Invalid gateway, or it names a tool or tag it lacks; details name the key.",
  },
  TG_INVALID_CONFIG: { status: 500, summary: "A configuration value is invalid." },
  TG_INVALID_REQUEST: { status: 422, summary: "A request failed validation; details name the fields." },
  TG_PATTERN_REFUSED: {
    status: 422,
    summary:
      "A JSON Schema of the request has a pattern Tollgate does not run (it needs backtracking: a lookaround or backreference; RE2 cannot read it; or it is too large); `details.schemaPath` names where.",
  },
  TG_BAD_REQUEST: {
    status: 400,
    summary:
      "A request could not be read (malformed JSON, wrong content type, a cursor no listing returned).",
  },
  TG_UNKNOWN_TOOL: { status: 422, summary: "A request names a tool the gateway does not have." },
  TG_TOOL_NAME_CLASH: { status: 422, summary: "An additional tool has the name of a tool already offered." },
  TG_PAYLOAD_TOO_LARGE: {
    status: 413,
    summary: "The request body or run input is over the configured limit.",
  },
  TG_REQUEST_TIMEOUT: {
    status: 408,
    summary:
      "The request's headers and body did not arrive within the request timeout; the connection is closed.",
  },
  TG_HEADERS_TOO_LARGE: { status: 431, summary: "The request's headers are over the size limit (16 KiB)." },
  TG_RUN_NOT_FOUND: { status: 404, summary: "No run has this id." },
  TG_THREAD_NOT_FOUND: { status: 404, summary: "No thread has this id (in the caller's tenant)." },
  TG_CALL_NOT_FOUND: {
    status: 404,
    summary: "The run has no tool call with this id (a fork's `fromCallId`).",
  },
  TG_CALL_NOT_FORKABLE: {
    status: 409,
    summary:
      "A fork cannot start at this call: an earlier call of its step has not finished yet, or the call cannot run at its step (`details.reason`).",
  },
  TG_FORK_INVALID_INPUT: {
    status: 422,
    summary: "A fork's edited input fails the tool's schema (or nests too deep); nothing was created.",
  },
  TG_RERUN_REPEATS_EFFECTS: {
    status: 409,
    summary:
      "A rerun or fork would run again calls of tools not declared `readOnly` that the run executed (`details.calls`); send `repeatEffects: true` to run them. Nothing was created.",
  },
  TG_RUN_NOT_RESUMABLE: {
    status: 409,
    summary:
      "The run cannot be resumed (`details.reason`): it completed, it has not finished, or a call it cut may still run (`details.calls`). Nothing was created.",
  },
  TG_SCHEDULE_NOT_FOUND: { status: 404, summary: "No schedule has this id (in the caller's tenant)." },
  TG_SCHEDULE_LIMIT_REACHED: {
    status: 422,
    summary:
      "The tenant has as many schedules as it may, or this one would make them tick more often than it may; `details.limit` names the limit.",
  },
  TG_RUN_FINISHED: { status: 409, summary: "The run has already finished." },
  TG_IDEMPOTENCY_CONFLICT: {
    status: 409,
    summary: "The idempotency key was used for a different request.",
  },
  TG_APPROVAL_NOT_FOUND: { status: 404, summary: "No approval has this id." },
  TG_APPROVAL_DECIDED: {
    status: 409,
    summary: "The approval was already decided, expired, or its run ended.",
  },
  TG_APPROVAL_STALE: {
    status: 409,
    summary:
      "The decision was made on a screen that showed another input than the approval's now (its inputHash differs).",
  },
  TG_APPROVAL_ALREADY_VOTED: {
    status: 409,
    summary: "This approver's vote already counts toward the approval's quorum; another approver must vote.",
  },
  TG_APPROVAL_INVALID_EDIT: {
    status: 422,
    summary: "An edit fails the schema or nests past 64 levels; the approval stays pending.",
  },
  TG_LINK_INVALID: {
    status: 403,
    summary:
      "An approval link whose signature does not verify (altered, another secret) or whose target no longer names its approver.",
  },
  TG_LINK_EXPIRED: {
    status: 410,
    summary: "An approval link past its expiry; open the approval in the console.",
  },
  TG_LINK_USED: {
    status: 409,
    summary: "An approval link (or its approve/reject twin) was already redeemed.",
  },
  TG_SLACK_SIGNATURE_INVALID: {
    status: 401,
    summary:
      "A request to the Slack interactivity route whose X-Slack-Signature is missing or does not verify with the signing secret of any Slack target.",
  },
  TG_SLACK_REQUEST_STALE: {
    status: 401,
    summary:
      "A Slack request whose X-Slack-Request-Timestamp is more than 5 minutes from the server's clock (a replay, or a clock far off).",
  },
  TG_SLACK_USER_UNMAPPED: {
    status: 403,
    summary:
      "The Slack user who pressed a button maps to no approver: not in the target's `approvers.users`, and no email lookup (or an address outside `byEmail.domains`).",
  },
  TG_SLACK_API_ERROR: {
    status: 502,
    summary:
      "Slack's Web API could not be reached or refused a call (`ok: false`); `details.method` and `details.error` say which and why.",
  },
  TG_STATE_CORRUPT: {
    status: 500,
    summary: "Stored run state is unreadable (not JSON, or an unknown version).",
  },
  TG_STATE_CONFLICT: {
    status: 409,
    summary: "Another worker saved the run since this one read it; the stale activation stops.",
  },
  TG_MODEL_FAILED: { status: 502, summary: "The model endpoint kept failing after its retries." },
  TG_MODEL_UNSUPPORTED: {
    status: 422,
    summary:
      "No model of the run's chain (the chosen model and its fallbacks) can serve the step: it offers tools and each says `supports.tools: false`; `details` names the models and the capability. Nothing was sent.",
  },
  TG_OUTPUT_INVALID: {
    status: 502,
    summary:
      "The model's answer failed the run's output schema, again after one retry that showed it the errors; `details.issues` lists them.",
  },
  TG_OUTPUT_TRUNCATED: {
    status: 502,
    summary:
      'The model endpoint cut the structured answer at its token limit (`finish_reason: "length"`); not retried.',
  },
  TG_RUN_FAILED: { status: 500, summary: "The run failed for an infrastructure reason." },
  TG_THREAD_BUSY: {
    status: 409,
    summary: "A run of the thread is queued or running; cancel it, or delete with force.",
  },
  TG_RUN_LOST: {
    status: 500,
    summary: "No job held the run any more (its job failed or vanished); the reconciler ended it.",
  },
  TG_WAIT_TIMEOUT: { status: 504, summary: "Waiting for a run took longer than asked." },
  TG_REDIS_UNAVAILABLE: {
    status: 503,
    summary: "Redis cannot be reached or cannot serve the command; retry later.",
  },
  TG_RUN_OUTCOME_UNKNOWN: {
    status: 503,
    summary:
      "Redis did not answer once the run was sent: it may exist. Look up `details.runId` before creating it again.",
  },
  TG_UNAUTHORIZED: { status: 401, summary: "No valid bearer token." },
  TG_FORBIDDEN: {
    status: 403,
    summary:
      "The token lacks the role this route needs, may not set this value, or an approver rule refuses the decision.",
  },
  TG_ROUTE_NOT_FOUND: { status: 404, summary: "No such route." },
  TG_RATE_LIMITED: {
    status: 429,
    summary:
      "Too many requests or open streams for this token or server, or runs for this tenant; retry after `Retry-After`.",
  },
  TG_INTERNAL: { status: 500, summary: "An internal error; the detail is in the server log." },
} as const satisfies Record<string, { status: number; summary: string }>;

export type TErrorCode = keyof typeof errorCatalogue;

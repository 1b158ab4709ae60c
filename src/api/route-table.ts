import type { IApiRoute } from "./http/route-definition.js";
import { approvalEventsRoute } from "./routes/approval-events-route.js";
import { inspectApprovalLinkRoute, redeemApprovalLinkRoute } from "./routes/approval-link-routes.js";
import {
  approvalTranscriptRoute,
  approveRoute,
  getApprovalRoute,
  listApprovalsRoute,
  rejectRoute,
} from "./routes/approval-routes.js";
import { askRoute } from "./routes/ask-route.js";
import { mcpRoute } from "./routes/mcp-routes.js";
import { meRoute } from "./routes/me-route.js";
import { healthRoute, metricsRoute, openApiRoute, readyRoute } from "./routes/operations-routes.js";
import { runEventsRoute } from "./routes/run-events-route.js";
import {
  cancelRunRoute,
  createRunRoute,
  forkRoute,
  getRunRoute,
  listRunsRoute,
  rerunRoute,
  resumeRoute,
} from "./routes/run-routes.js";
import {
  createScheduleRoute,
  deleteScheduleRoute,
  getScheduleRoute,
  listSchedulesRoute,
  pauseScheduleRoute,
  resumeScheduleRoute,
} from "./routes/schedule-routes.js";
import { slackInteractivityRoute } from "./routes/slack-interactivity-route.js";
import { deleteThreadRoute } from "./routes/thread-routes.js";
import { listToolsRoute } from "./routes/tool-routes.js";
import { usageRoute } from "./routes/usage-route.js";

/** Every route of the API: what the app registers and what the OpenAPI document describes. */
export const apiRoutes: readonly IApiRoute[] = Object.freeze([
  createRunRoute,
  listRunsRoute,
  askRoute,
  getRunRoute,
  rerunRoute,
  resumeRoute,
  forkRoute,
  runEventsRoute,
  cancelRunRoute,
  deleteThreadRoute,
  createScheduleRoute,
  listSchedulesRoute,
  getScheduleRoute,
  pauseScheduleRoute,
  resumeScheduleRoute,
  deleteScheduleRoute,
  listApprovalsRoute,
  approvalEventsRoute,
  getApprovalRoute,
  approvalTranscriptRoute,
  approveRoute,
  rejectRoute,
  inspectApprovalLinkRoute,
  redeemApprovalLinkRoute,
  slackInteractivityRoute,
  listToolsRoute,
  meRoute,
  usageRoute,
  mcpRoute,
  openApiRoute,
  metricsRoute,
  healthRoute,
  readyRoute,
]);

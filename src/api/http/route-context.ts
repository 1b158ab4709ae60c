import type { Registry } from "prom-client";
import type { ITollgateMetrics } from "../../observability/index.js";
import type { GatewayClient, IGatewayClientPort } from "../../producer/index.js";
import type { ISlackConnection } from "../../slack/index.js";
import type { IApiSettings } from "../api-options.js";
import type { OpenMcpRequests } from "../mcp/open-mcp-requests.js";
import type { EventStreams } from "../sse/event-streams.js";

/** What every handler may use; built once per app. */
export interface IRouteContext {
  readonly client: GatewayClient;
  /** Whether Redis still answers the client's connection (asking again): what `/healthz` says. */
  readonly redisContact: IGatewayClientPort["redisContact"];
  readonly settings: IApiSettings;
  /** The registry `/metrics` serves. */
  readonly registry: Registry;
  /** Counters the routes record into; absent when the caller gave only a registry. */
  readonly metrics?: ITollgateMetrics | undefined;
  /** The gateway's Slack targets by name, with their apps' signing secrets (empty: none). */
  readonly slack: ReadonlyMap<string, ISlackConnection>;
  /** The open Server-Sent Events streams, ended when the app closes. */
  readonly eventStreams: EventStreams;
  /** The MCP requests being answered (`/mcp`), ended when the app closes. */
  readonly mcpRequests: OpenMcpRequests;
  /** The OpenAPI document, built on first use (it is the same for every app). */
  openApiDocument(): object;
}

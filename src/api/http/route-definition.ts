import type { FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { TErrorCode } from "../../errors/index.js";
import type { IApiSettings } from "../api-options.js";
import type { TRouteAccess } from "../auth/authenticate.js";
import type { IRouteContext } from "./route-context.js";

/** The zod schemas a route validates its input with; fastify replaces each part with the parsed value. */
export interface IRouteSchemas {
  body?: z.ZodType;
  params?: z.ZodType;
  querystring?: z.ZodType;
  headers?: z.ZodType;
}

export interface IRouteResponse {
  description: string;
  /** The JSON body; absent for a body that is not JSON (then `contentType` says what it is). */
  schema?: z.ZodType;
  /** @defaultValue "application/json" */
  contentType?: string;
  /**
   * For a `text/event-stream`: the schema under `components.schemas` (`RunEvent`, `ApprovalEvent`) whose
   * JSON each event's `data:` line holds. The document describes one event with it.
   */
  eventData?: TEventDataComponent;
}

/** The component schemas an event stream's `data:` may name. */
export type TEventDataComponent = "RunEvent" | "ApprovalEvent";

/**
 * One route as both fastify and the OpenAPI document see it: the same schemas validate requests and
 * describe them, so the document cannot drift from what the server accepts.
 */
export interface IRouteSpec<TSchemas extends IRouteSchemas = IRouteSchemas> {
  method: "GET" | "POST" | "DELETE";
  /** In fastify's form: `/v1/runs/:runId`. */
  url: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: TRouteAccess;
  schemas: TSchemas;
  /**
   * A body whose bounds depend on the server's settings (the longest `ask` wait): it replaces
   * `schemas.body` for validation and in the document alike; `schemas.body` still types the handler.
   */
  bodyFor?: (settings: IApiSettings) => z.ZodType;
  /**
   * A form-encoded body that reaches the handler as its raw bytes (a Buffer), unparsed: the handler
   * verifies a signature over exactly those bytes before it reads them (Slack's interactivity). The route
   * is registered in a scope of its own that reads this content type; these schemas only describe the
   * body and the headers in the OpenAPI document, the handler checks them itself.
   */
  rawForm?: { body: z.ZodType; headers?: z.ZodType };
  /** Whether a request must have a body. @defaultValue true when `schemas.body` is set */
  bodyRequired?: boolean;
  /**
   * The request waits for something other than Redis (a run to finish, a stream's events), so it has no
   * budget of Redis time as a whole; each of its commands still has the command timeout. Every other
   * route's commands together get `commandTimeoutMs` (see `withRedisBudget`).
   */
  waits?: true;
  /**
   * Starts or resumes a run (a run's creation, an approval's decision): traced from the request (a SERVER
   * span, `traceparent` on the answer) when tracing is on.
   */
  traced?: true;
  /** The success responses by status. */
  responses: Record<number, IRouteResponse>;
  /**
   * The errors particular to this route. Auth (401/403), validation (400/413/422) and 500 are added
   * from `access` and `schemas`.
   */
  errors?: TErrorCode[];
}

type TPartOf<TSchema> = TSchema extends z.ZodType ? z.output<TSchema> : unknown;

export type TRouteRequest<TSchemas extends IRouteSchemas> = FastifyRequest<{
  Body: TPartOf<TSchemas["body"]>;
  Params: TPartOf<TSchemas["params"]>;
  Querystring: TPartOf<TSchemas["querystring"]>;
  Headers: TPartOf<TSchemas["headers"]>;
}>;

export type TRouteHandler<TSchemas extends IRouteSchemas> = (
  request: TRouteRequest<TSchemas>,
  reply: FastifyReply,
  context: IRouteContext,
) => Promise<unknown>;

/** A route with its types erased, for the route table. */
export interface IApiRoute {
  readonly spec: IRouteSpec;
  handle(request: FastifyRequest, reply: FastifyReply, context: IRouteContext): Promise<unknown>;
}

/**
 * Ties a handler to its spec so the handler's request is typed by the spec's schemas. The erasure is
 * sound because the validator compiler replaces every part with its schema's parsed output before the
 * handler runs.
 */
export function defineRoute<TSchemas extends IRouteSchemas>(
  spec: IRouteSpec<TSchemas>,
  handle: TRouteHandler<TSchemas>,
): IApiRoute {
  return {
    spec,
    handle: (request, reply, context) => handle(request as TRouteRequest<TSchemas>, reply, context),
  };
}

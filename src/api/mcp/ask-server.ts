import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { FastifyRequest } from "fastify";
import { describeFieldIssues, TollgateError, toFieldIssues } from "../../errors/index.js";
import { runOwnershipOf } from "../auth/run-ownership.js";
import type { IRouteContext } from "../http/route-context.js";
import { packageVersion } from "../openapi/package-version.js";
import { askAndWait } from "./ask-and-wait.js";
import { askToolArgumentsSchema, askToolOf, type TAskToolArguments } from "./ask-tool.js";
import { askToolRefusalOf } from "./ask-tool-result.js";
import type { IMcpServerSdk } from "./mcp-server-sdk.js";
import { taskOfRun } from "./run-task.js";
import { RunTaskStore } from "./run-task-store.js";

/**
 * The MCP server of one HTTP request (the transport is stateless: a server per request, nothing kept
 * between them), acting for the request's caller: every run it creates is created as `POST /v1/ask`
 * creates it (the caller's tenant, subject and pinned profiles; the gateway's limits), and every task it
 * reads is a run the caller may see.
 */
export function createAskServer(sdk: IMcpServerSdk, request: FastifyRequest, context: IRouteContext): Server {
  const { client, settings } = context;
  const gateway = client.gateway.settings;
  const tool = askToolOf(gateway, settings.askMaxWaitMs);
  const argumentsSchema = askToolArgumentsSchema(settings.askMaxWaitMs);
  const declaresOutput = gateway.output !== undefined;
  const server = new sdk.Server(
    { name: gateway.name, version: packageVersion() },
    {
      capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: new RunTaskStore(client, request, declaresOutput),
    },
  );
  server.setRequestHandler(sdk.ListToolsRequestSchema, async () => ({ tools: [tool] }));
  server.setRequestHandler(sdk.CallToolRequestSchema, async (call, extra) => {
    if (call.params.name !== tool.name) {
      throw new sdk.McpError(
        sdk.ErrorCode.InvalidParams,
        `Unknown tool: ${call.params.name}. This server has ${tool.name}.`,
      );
    }
    const asTask = call.params.task !== undefined;
    const parsed = argumentsSchema.safeParse(call.params.arguments ?? {});
    try {
      if (!parsed.success) {
        throw new TollgateError("TG_INVALID_REQUEST", describeFieldIssues(toFieldIssues(parsed.error)));
      }
      context.metrics?.mcpToolCall(asTask ? "task" : "call");
      if (asTask) return await startTask(parsed.data);
      const input = runInputOf(parsed.data);
      return await askAndWait(
        client,
        { ...input, timeoutMs: input.timeoutMs ?? settings.askMaxWaitMs },
        declaresOutput,
        extra,
      );
    } catch (error) {
      if (!TollgateError.isInstance(error)) throw error;
      // A refused request is the tool's error, for the calling model to read; a task-augmented call has no
      // tool result to carry it, so it is the request's error there.
      if (!asTask) return askToolRefusalOf(error);
      throw new sdk.McpError(sdk.ErrorCode.InvalidParams, `${error.code}: ${error.message}`, {
        code: error.code,
      });
    }
  });

  function runInputOf(toolArguments: TAskToolArguments) {
    const { tenant, userContext, ...rest } = toolArguments;
    return { ...rest, ...runOwnershipOf(request, { tenant, userContext }) };
  }

  /** A task-augmented call: the run is created (with no deadline but its own, as `POST /v1/runs`) and is the task. */
  async function startTask(toolArguments: TAskToolArguments) {
    const { runId } = await client.run(runInputOf(toolArguments));
    return { task: taskOfRun(await client.getRun(runId)) };
  }

  return server;
}

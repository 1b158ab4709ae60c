import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { TOutputSpec } from "../../contracts/index.js";
import { askBodySchema } from "../schemas/request-schemas.js";

/** MCP tool names: letters, digits, `_`, `-` and `.`, at most 128 (the specification's advice). */
const toolNameLimit = 128;

/**
 * The name of the tool that asks the gateway's agent: `ask_<the gateway's name>`, its characters outside
 * what tool names may hold turned into `_`. A gateway that names nothing is `tollgate`: `ask_tollgate`.
 * Named after the gateway, not `ask_agent`, so a client connected to several gateways tells them apart.
 */
export function askToolNameOf(gatewayName: string): string {
  return `ask_${gatewayName.replace(/[^A-Za-z0-9_.-]/g, "_")}`.slice(0, toolNameLimit);
}

/**
 * The tool's arguments: what `POST /v1/ask` takes, checked by the same schema (so its bounds, the longest
 * wait included, are the server's), less what would make the call another agent than the one described:
 * its own instructions, tools or output schema. The idempotency key is HTTP's header there and absent here.
 */
export function askToolArgumentsSchema(askMaxWaitMs: number) {
  const body = askBodySchema(askMaxWaitMs);
  return body
    .pick({
      input: true,
      threadId: true,
      userContext: true,
      tenant: true,
      model: true,
      maxSteps: true,
      maxToolCalls: true,
      maxTotalTokens: true,
      timeoutMs: true,
      metadata: true,
    })
    .extend({
      input: body.shape.input.describe("The user message the agent answers."),
      threadId: body.shape.threadId.describe(
        "Continue this conversation: the thread id a previous answer named. Absent: a new thread.",
      ),
    });
}

export type TAskToolArguments = z.output<ReturnType<typeof askToolArgumentsSchema>>;

/** The gateway as `tools/list` shows it: what it answers (its structured output, when it has one). */
export interface IAskedGateway {
  name: string;
  output?: TOutputSpec | undefined;
}

/**
 * The one tool of the gateway's MCP server. Task-augmented calls are optional: a client of the tasks
 * extension gets a task (the run) to poll, any other client's call returns when the run finishes.
 */
export function askToolOf(gateway: IAskedGateway, askMaxWaitMs: number): Tool {
  const inputSchema = z.toJSONSchema(askToolArgumentsSchema(askMaxWaitMs), { io: "input" });
  return {
    name: askToolNameOf(gateway.name),
    title: `Ask ${gateway.name}`,
    description:
      `Asks the ${gateway.name} agent: it answers the input, calling its tools as it needs. A tool call ` +
      "that needs a person's approval waits for it (progress notifications, or the task's input_required " +
      "status, name the approval); the answer comes once the run finishes.",
    inputSchema: inputSchema as Tool["inputSchema"],
    ...(gateway.output ? { outputSchema: gateway.output.schema as Tool["outputSchema"] } : {}),
    execution: { taskSupport: "optional" },
    annotations: { readOnlyHint: false, openWorldHint: true },
  };
}

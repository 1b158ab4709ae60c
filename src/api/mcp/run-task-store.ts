import type {
  CreateTaskOptions,
  TaskStore,
} from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import type { Result, Task } from "@modelcontextprotocol/sdk/types.js";
import type { FastifyRequest } from "fastify";
import { TollgateError } from "../../errors/index.js";
import { auditLog } from "../../observability/index.js";
import type { GatewayClient } from "../../producer/index.js";
import { principalOf } from "../auth/authenticate.js";
import { assertRunVisible } from "../auth/tenant-access.js";
import { askToolResultOf } from "./ask-tool-result.js";
import { taskOfRun } from "./run-task.js";

/**
 * The tasks extension's store, read from the runs themselves: a task is a run (same id), so the store
 * keeps nothing, and an API replica that never saw the call answers `tasks/get` as well as the one that
 * created it. Built per request for its caller: a run outside the caller's tenant is no task (null, which
 * the SDK answers as an unknown task), as `GET /v1/runs/:runId` answers 404 for it.
 */
export class RunTaskStore implements TaskStore {
  readonly #client: GatewayClient;
  readonly #request: FastifyRequest;
  readonly #declaresOutput: boolean;

  constructor(client: GatewayClient, request: FastifyRequest, declaresOutput: boolean) {
    this.#client = client;
    this.#request = request;
    this.#declaresOutput = declaresOutput;
  }

  /** Never called: the ask tool creates its run, whose id is the task's, and answers the task itself. */
  async createTask(_options: CreateTaskOptions): Promise<Task> {
    throw new Error("Tasks of this server are runs, created by calling its ask tool.");
  }

  async getTask(taskId: string): Promise<Task | null> {
    const run = await this.#visibleRun(taskId);
    return run ? taskOfRun(run) : null;
  }

  /** Never called: a run stores its own response, which `getTaskResult` reads. */
  async storeTaskResult(): Promise<void> {
    throw new Error("A run stores its own response.");
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const run = await this.#visibleRun(taskId);
    if (!run?.response) throw new Error(`Task ${taskId} has no result: its run has not finished.`);
    return askToolResultOf(run.response, this.#declaresOutput);
  }

  /**
   * `tasks/cancel` cancels the run, as `POST /v1/runs/:runId/cancel` does (and is audited alike); the task
   * reads `cancelled` once the run has ended. Nothing else may set a run's status from outside.
   */
  async updateTaskStatus(taskId: string, status: Task["status"]): Promise<void> {
    if (status !== "cancelled")
      throw new Error(`A task's status is its run's; it cannot be set to ${status}.`);
    await assertRunVisible(this.#client, this.#request, taskId);
    const principal = principalOf(this.#request);
    let outcome = "ok";
    try {
      await this.#client.cancel(taskId);
    } catch (error) {
      outcome = TollgateError.isInstance(error) ? error.code : "error";
      throw error;
    } finally {
      auditLog(this.#request.log, {
        subject: principal.subject,
        tenant: principal.tenant,
        action: "run.cancel",
        targetId: taskId,
        outcome,
      });
    }
  }

  /** Not offered (the server declares no `tasks.list`): `GET /v1/runs` lists a tenant's runs. */
  async listTasks(): Promise<{ tasks: Task[] }> {
    throw new Error("Tasks are not listed here: GET /v1/runs lists the tenant's runs.");
  }

  async #visibleRun(runId: string) {
    try {
      await assertRunVisible(this.#client, this.#request, runId);
      return await this.#client.getRun(runId);
    } catch (error) {
      if (TollgateError.isInstance(error) && error.code === "TG_RUN_NOT_FOUND") return undefined;
      throw error;
    }
  }
}

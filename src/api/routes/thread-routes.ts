import { threadTenantOf } from "../auth/tenant-access.js";
import { defineRoute } from "../http/route-definition.js";
import { deleteThreadQuerySchema, threadParamsSchema } from "../schemas/request-schemas.js";
import { deletedThreadSchema } from "../schemas/response-schemas.js";

export const deleteThreadRoute = defineRoute(
  {
    method: "DELETE",
    url: "/v1/threads/:threadId",
    operationId: "deleteThread",
    summary: "Delete a thread and everything of it",
    description:
      "Deletes the thread's history and every run it had (state, events), for a data-protection request " +
      "or when a conversation is over. Refused with 409 while a run of the thread is queued or running, " +
      "unless force=true, which cancels those runs first. Safe to repeat. Thread ids are scoped per " +
      "tenant: this deletes the caller's tenant's thread of that id (a token of every tenant names the " +
      "tenant, else the default tenant's), never another tenant's.",
    tag: "threads",
    access: "runs:write",
    schemas: { params: threadParamsSchema, querystring: deleteThreadQuerySchema },
    responses: { 200: { description: "The thread is deleted.", schema: deletedThreadSchema } },
    errors: ["TG_FORBIDDEN", "TG_THREAD_BUSY", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => {
    const tenant = threadTenantOf(request, request.query.tenant, "/v1/threads/:threadId");
    return client.deleteThread(request.params.threadId, { force: request.query.force === "true", tenant });
  },
);

import { z } from "zod";
import { errorCatalogue, type IFieldIssue, type TErrorCode } from "../../errors/index.js";

const errorCodes = Object.keys(errorCatalogue) as [TErrorCode, ...TErrorCode[]];

/** The body of every error response: `{ error: { code, message, details? } }`. */
export const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.enum(errorCodes).describe("Stable: branch on it, never on the message."),
    message: z.string(),
    details: z
      .looseObject({
        issues: z
          .array(z.object({ path: z.string(), message: z.string() }))
          .optional()
          .describe("400/422: the offending fields, with dotted paths relative to `in`."),
        in: z.enum(["body", "querystring", "params", "headers"]).optional(),
      })
      .optional(),
  }),
});

export type TErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

export interface IErrorReply {
  status: number;
  body: TErrorEnvelope;
}

export function errorReply(
  code: TErrorCode,
  message: string,
  details?: Record<string, unknown> & { issues?: IFieldIssue[] },
): IErrorReply {
  return {
    status: errorCatalogue[code].status,
    body: { error: details === undefined ? { code, message } : { code, message, details } },
  };
}

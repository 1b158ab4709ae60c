import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { IApiOptions } from "./api-options.js";
import { buildApi } from "./build-api.js";

export interface IStartApiOptions extends IApiOptions {
  /** 0 picks a free port (tests). */
  port: number;
  /** @defaultValue "0.0.0.0", so a load balancer in another container can reach it */
  host?: string;
}

export interface IRunningApi {
  /** A URL that reaches the server from this machine (127.0.0.1 when it listens on every address). */
  url: string;
  port: number;
  app: FastifyInstance;
  /** Stops accepting, ends open event streams, drains in-flight requests; closes the client if owned. */
  close(): Promise<void>;
}

/** Builds the API and listens. SIGTERM is the caller's to handle: call close() on it. */
export async function startApi(options: IStartApiOptions): Promise<IRunningApi> {
  const host = options.host ?? "0.0.0.0";
  const app = await buildApi(options);
  try {
    await app.listen({ port: options.port, host });
  } catch (error) {
    await app.close();
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://${reachableHost(host)}:${port}`, port, app, close: () => app.close() };
}

function reachableHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

import type { EventFollowers } from "../runtime/event-followers.js";
import type { IPartitionSet } from "../runtime/partition-set.js";
import type { IRunEndingObserver } from "../runtime/run-ending.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import type { IThreadRef } from "../store/index.js";

/**
 * What a GatewayClient holds beneath its public methods: the partitions' runtimes. Kept off the class
 * (no property, not even a private one a cast could reach), in a registry only the client, its narrow
 * port (client-port.ts) and the tests read; `.dependency-cruiser.cjs` keeps every other module out.
 */
export interface IGatewayClientInternals {
  /** The first partition of the current layout (the only one with `partitions: 1`). */
  readonly runtime: ITollgateRuntime;
  /** Every partition the client reaches, and where ids and threads go. */
  readonly partitions: IPartitionSet;
  /** The partition holding a run (or its call or approval); TG_RUN_NOT_FOUND for one it does not reach. */
  runtimeOf(runId: string): ITollgateRuntime;
  /** The partition a thread's next run goes to. */
  runtimeOfThread(thread: IThreadRef): Promise<ITollgateRuntime>;
  /** Where the runs the client ends itself are counted (set by an API through its port). */
  readonly runEndings: IRunEndingObserver;
  /** The followers of live streams the client made so far, one per partition it followed. */
  eventFollowers(): readonly EventFollowers[];
}

/** Keyed by the client object; a WeakMap so a closed, dropped client is collected with its entry. */
const registry = new WeakMap<object, IGatewayClientInternals>();

/** Called once by the GatewayClient constructor. */
export function attachClientInternals(client: object, internals: IGatewayClientInternals): void {
  registry.set(client, internals);
}

/** A client's internals; throws for an object no GatewayClient constructor registered. */
export function clientInternals(client: object): IGatewayClientInternals {
  const internals = registry.get(client);
  if (!internals) throw new TypeError("Not a GatewayClient: it has no runtime.");
  return internals;
}

/** One way of running the benchmark's conversation: what every scenario alternates between. */
export interface IContender {
  name: string;
  /** Runs the conversation with `calls` parallel tool calls; resolves once the caller has the answer. */
  run(tag: string, calls?: number): Promise<void>;
  /** Child processes whose CPU is this contender's (a CLI worker); the bench process counts for all. */
  childPids: readonly number[];
  close(): Promise<void>;
}

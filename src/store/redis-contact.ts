import type { ITollgateRedis } from "./redis-client.js";

/** Whether a process still reaches Redis, as `/healthz` answers it. */
export interface IRedisContactState {
  /** False once Redis has answered none of the process's questions for `lostAfterMs`. */
  reached: boolean;
  /** How long the oldest unanswered question has waited; 0 when the last one was answered. */
  unansweredForMs: number;
}

/**
 * Whether a process can still reach Redis on its command connection, for a liveness probe: each `check`
 * sends a PING on that connection (unless the last one is still unanswered) and says whether Redis has
 * left a question unanswered for longer than `lostAfterMs`. The PING takes the path every command of the
 * process takes (auto-pipelining included), so a connection that no longer sends anything is seen as
 * well as a Redis that is down or paused. Any reply counts, an error reply too (LOADING, OOM): Redis
 * answered. Questions are asked only when someone checks: a process nobody probes sends nothing, and
 * the first check after a quiet while counts from its own question, not from the last answer.
 */
export class RedisContact {
  /** When the first question since the last answer was asked; undefined once one was answered. */
  private unansweredSince: number | undefined;
  private question: Promise<void> | undefined;

  constructor(
    private readonly redis: ITollgateRedis,
    private readonly lostAfterMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  check(): IRedisContactState {
    const askedAt = this.now();
    if (this.question === undefined) {
      this.unansweredSince ??= askedAt;
      this.question = this.redis
        .ping()
        .then(
          () => this.answered(),
          (error: unknown) => {
            if (error instanceof Error && error.name === "ReplyError") this.answered();
          },
        )
        .finally(() => {
          this.question = undefined;
        });
    }
    const unansweredForMs = this.unansweredSince === undefined ? 0 : askedAt - this.unansweredSince;
    return { reached: unansweredForMs < this.lostAfterMs, unansweredForMs };
  }

  private answered(): void {
    this.unansweredSince = undefined;
  }
}

import type { Redis } from "ioredis";
import type { IKeys } from "./keys.js";
import { defineLuaCommand } from "./lua-command.js";

/**
 * Starts or lengthens a model's pause; never shortens one. Announces it on the pauses channel, so that
 * workers need not read the key before every model call. KEYS: pause. ARGV: pauseMs, channel, message.
 * Returns 1 when this call started or lengthened the pause.
 */
const pauseModelScript = `
if redis.call('PTTL', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
`;

interface IPauseCommands {
  tgPauseModel(pause: string, pauseMs: string, channel: string, message: string): Promise<number>;
}

/** What the pauses channel carries: the model and how long its pause lasts from now. */
export interface IModelPauseMessage {
  model: string;
  pauseMs: number;
}

/**
 * Fleet-wide pauses of model calls, one key per model with the pause as its TTL: a 429 with `retry-after`
 * seen by one worker holds back every worker's calls to that model, instead of each job backing off on
 * its own and hitting the endpoint again.
 */
export class ModelPauses {
  private readonly redis: Redis & IPauseCommands;

  constructor(
    redis: Redis,
    private readonly keys: IKeys,
  ) {
    const commands = redis as Redis & IPauseCommands;
    if (typeof commands.tgPauseModel !== "function") {
      defineLuaCommand(redis, "tgPauseModel", { numberOfKeys: 1, lua: pauseModelScript });
    }
    this.redis = commands;
  }

  /** How long calls to `model` must still wait; 0 when it is not paused. */
  async remainingMs(model: string): Promise<number> {
    return Math.max(0, await this.redis.pttl(this.keys.modelPause(model)));
  }

  /** Pauses `model` for `pauseMs` unless a longer pause is on; true when this call set it. */
  async pause(model: string, pauseMs: number): Promise<boolean> {
    const ms = Math.ceil(pauseMs);
    const message: IModelPauseMessage = { model, pauseMs: ms };
    const set = await this.redis.tgPauseModel(
      this.keys.modelPause(model),
      String(ms),
      this.keys.modelPauseChannel(),
      JSON.stringify(message),
    );
    return set === 1;
  }
}

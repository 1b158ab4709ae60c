/**
 * How hard the fault suite pushes: the quick profile runs inside `npm test` (about a minute in all on a
 * 2-core machine), the long one with `npm run chaos` (CHAOS_PROFILE=long, several minutes). Every random
 * choice comes from one seeded generator: the seed is printed, and CHAOS_SEED replays a run.
 */
export interface IChaosProfile {
  name: "quick" | "long";
  /** Runs submitted by the worker-crash suite. */
  crashRuns: number;
  /** SIGKILLs of random workers during the crash suite. */
  crashKills: number;
  /** Runs submitted during each Redis fault. */
  redisFaultRuns: number;
  /** Rounds of each Redis fault (restart by SIGTERM, by SIGKILL, pause, full). */
  redisFaultRounds: number;
  /** Runs per model-endpoint fault. */
  modelFaultRuns: number;
  /** Generated requests per HTTP property. */
  propertyRuns: number;
}

const profiles: Record<IChaosProfile["name"], IChaosProfile> = {
  quick: {
    name: "quick",
    crashRuns: 24,
    crashKills: 4,
    redisFaultRuns: 6,
    redisFaultRounds: 1,
    modelFaultRuns: 2,
    propertyRuns: 200,
  },
  long: {
    name: "long",
    crashRuns: 150,
    crashKills: 20,
    redisFaultRuns: 20,
    redisFaultRounds: 3,
    modelFaultRuns: 6,
    propertyRuns: 500,
  },
};

export const chaosProfile: IChaosProfile =
  process.env.CHAOS_PROFILE === "long" ? profiles.long : profiles.quick;

/** The seed of this run: CHAOS_SEED when given (to replay), else a fresh one. */
export function chaosSeed(suite: string): number {
  const given = process.env.CHAOS_SEED;
  const seed = given !== undefined && given !== "" ? Number(given) >>> 0 : (Date.now() ^ process.pid) >>> 0;
  // Printed on purpose: a failing chaos run is replayed with this seed.
  console.log(`chaos ${suite}: profile=${chaosProfile.name} seed=${seed} (replay: CHAOS_SEED=${seed})`);
  return seed;
}

/** A small seeded generator (mulberry32): the same seed gives the same choices. */
export interface IRandom {
  /** In [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  integer(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

export function seededRandom(seed: number): IRandom {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    integer: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
    chance: (probability) => next() < probability,
  };
}

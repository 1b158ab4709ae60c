/**
 * Tollgate's benchmarks: `npm run bench` (or `npm run bench -- <name>...`). Each starts a private
 * redis-server and the scripted model, so nothing else shares the numbers. Results print as Markdown;
 * docs/BENCHMARKS.md keeps them with the machine and the date.
 */
import { approvalMemory } from "./scenarios/approval-memory.js";
import { crashRecovery } from "./scenarios/crash-recovery.js";
import { redisCommandsPerRun } from "./scenarios/redis-commands-per-run.js";
import { throughput } from "./scenarios/throughput.js";

const scenarios: Record<string, () => Promise<string>> = {
  "redis-commands": redisCommandsPerRun,
  throughput,
  "approval-memory": approvalMemory,
  "crash-recovery": crashRecovery,
};

const chosen = process.argv.slice(2).filter((name) => !name.startsWith("-"));
const names = chosen.length > 0 ? chosen : Object.keys(scenarios);
console.log(`# Tollgate benchmarks\n\nnode ${process.version}, ${new Date().toISOString()}\n`);
for (const name of names) {
  const scenario = scenarios[name];
  if (!scenario) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(scenarios).join(", ")}`);
    process.exit(2);
  }
  console.log(`## ${name}\n\n${await scenario()}\n`);
}
process.exit(0);

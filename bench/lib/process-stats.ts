import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";

/** Clock ticks per second of /proc's utime and stime: 100 on Linux everywhere we run. */
const ticksPerSecond = 100;

/** CPU time (user + system, ms) of this process so far. */
export function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** CPU time (user + system, ms) of another process, from /proc/<pid>/stat; 10 ms resolution. */
export async function processCpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may contain spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const userTicks = Number(fields[11]);
  const systemTicks = Number(fields[12]);
  return ((userTicks + systemTicks) * 1000) / ticksPerSecond;
}

/** Resident set size (MB) of a process, from /proc/<pid>/status. */
export async function processRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kilobytes = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kilobytes / 1024;
}

/** The 1-minute load average, from /proc/loadavg. */
export async function loadAverage(): Promise<number> {
  const text = await readFile("/proc/loadavg", "utf8");
  return Number(text.split(" ")[0]);
}

/**
 * CPU time (ms) of this process's main thread and of its other threads (V8's garbage-collection
 * helpers, which scavenge in parallel and mark concurrently, and libuv's pool), from
 * /proc/self/task/<tid>/stat; 10 ms resolution. `process.cpuUsage` sums them: this splits what a run's
 * garbage costs off the main thread from the JavaScript it runs.
 */
export function ownThreadsCpuMs(): { main: number; other: number } {
  const split = { main: 0, other: 0 };
  for (const threadId of readdirSync("/proc/self/task")) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${threadId}/stat`, "utf8");
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
    if (threadId === String(process.pid)) split.main += ms;
    else split.other += ms;
  }
  return split;
}

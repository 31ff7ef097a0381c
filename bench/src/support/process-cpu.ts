import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) one process has used so far; undefined once it is gone. On a machine
 * shared with other work this stays meaningful where latencies do not: it is what a request costs,
 * not how long it waited for a core.
 */
function cpuSecondsOfOne(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, hence the last ')'): utime is the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds a group of processes used between two readings: `before` (cpuReadingOf, taken with
 * the pids of then) and now, for the pids of now. A process started in between counts whole; one
 * that ended in between counts nothing (its last seconds are lost, not its whole life subtracted),
 * as database connections a pool closes and opens again during a measurement do.
 */
export function cpuReadingOf(pids: readonly number[]) {
  return new Map(pids.map((pid) => [pid, cpuSecondsOfOne(pid) ?? 0]));
}

export function cpuSecondsSince(before: Map<number, number>, pids: readonly number[]) {
  let seconds = 0;
  for (const pid of new Set([...before.keys(), ...pids])) {
    const now = cpuSecondsOfOne(pid);
    if (now !== undefined) seconds += now - (before.get(pid) ?? 0);
  }
  return seconds;
}

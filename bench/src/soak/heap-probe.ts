/**
 * Loaded into each server process the soak starts (NODE_OPTIONS=--import=<this file>): on SIGUSR2
 * it collects garbage in full and writes the process's memory figures to SOAK_PROBE_DIR/<pid>.json,
 * so the soak samples the heap that is still held, not whatever garbage a collection has yet to free.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const dir = process.env.SOAK_PROBE_DIR;
if (dir) {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  let sequence = 0;
  process.on('SIGUSR2', () => {
    gc();
    const memory = process.memoryUsage();
    writeFileSync(
      path.join(dir, `${process.pid}.json`),
      JSON.stringify({
        sequence: ++sequence,
        rss: memory.rss,
        heapUsed: memory.heapUsed,
        external: memory.external,
      }),
    );
  });
}

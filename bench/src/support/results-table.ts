import type { BenchRow } from './scenario.ts';

/** Everything one `npm run bench` found: what bench/results/latest.json holds. */
export type BenchReport = {
  at: string;
  quick: boolean;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; postgres: string };
  /** The whole run, and each scenario's part of it (setup included). */
  seconds: number;
  scenarioSeconds: Record<string, number>;
  /** Scenarios kept from an earlier run (a run of some scenarios keeps the others'), by when they ran. */
  earlier?: Record<string, string>;
  baselines: Record<string, number>;
  failures: { scenario: string; error: string }[];
  rows: BenchRow[];
};

const formatFigure = (figure: number) =>
  Math.abs(figure) >= 100 ? Math.round(figure).toLocaleString('en-US') : Number(figure.toFixed(2)).toString();

const COLUMNS = ['scenario', 'measure', 'work', 'figure', 'ratio', 'target'] as const;

/** Under 1, three decimals: a rows ratio of 0.497 printed as 0.50 read as a met 0.5 x R_copy. */
const ratioText = (ratio: number) => ratio.toFixed(ratio < 1 ? 3 : 2);

/** The one results table: scenario, work, figure and unit, ratio to its baseline, target. */
function formatTable(rows: readonly BenchRow[]) {
  const table = rows.map((row) => ({
    scenario: row.scenario,
    measure: row.measure,
    work: row.work,
    figure: `${formatFigure(row.figure)} ${row.unit}`,
    ratio: row.baseline ? `${ratioText(row.figure / row.baseline.figure)} x ${row.baseline.name}` : '',
    target: row.target ? `${row.target}${row.met === undefined ? '' : row.met ? ' (met)' : ' (missed)'}` : '',
  }));
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const widths = COLUMNS.map((column) =>
    Math.max(column.length, ...table.map((row) => cell(row[column]).length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((text, i) => cell(text).padEnd(widths[i])).join(' | ')} |`;
  return [
    line(COLUMNS),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...table.map((row) => line(COLUMNS.map((column) => row[column]))),
  ].join('\n');
}

/** The machine, the table, what failed and how long it took: Markdown that reads well in a terminal too. */
export function formatReport(report: BenchReport) {
  const { machine } = report;
  const parts = [
    `${report.quick ? 'Quick run' : 'Run'} of ${report.at.slice(0, 16).replace('T', ' ')} UTC on ${machine.cpus} cores ` +
      `(${machine.cpuModel}), ${machine.memoryGiB} GiB memory, Node ${machine.node}, ${machine.postgres}.`,
    formatTable(report.rows),
  ];
  const earlier = Object.entries(report.earlier ?? {});
  if (earlier.length > 0)
    parts.push(
      `Kept from earlier runs: ${earlier.map(([name, at]) => `${name} (${at.slice(0, 16).replace('T', ' ')} UTC)`).join(', ')}.`,
    );
  if (report.failures.length > 0) {
    parts.push(
      [
        'Scenarios that failed:',
        ...report.failures.map(({ scenario, error }) => `- ${scenario}: ${error}`),
      ].join('\n'),
    );
  }
  const times = Object.entries(report.scenarioSeconds).map(
    ([name, seconds]) => `${name} ${seconds.toFixed(0)} s`,
  );
  parts.push(`Time: ${[...times, `total ${report.seconds.toFixed(0)} s`].join(', ')}.`);
  return `${parts.join('\n\n')}\n`;
}

import type { BenchRow } from './scenario.ts';

const formatFigure = (figure: number) =>
  Math.abs(figure) >= 100 ? Math.round(figure).toLocaleString('en-US') : Number(figure.toFixed(2)).toString();

/** The one results table: scenario, work, figure and unit, ratio to its baseline, target. */
export function printResults(rows: readonly BenchRow[]) {
  const table = rows.map((row) => ({
    scenario: row.scenario,
    measure: row.measure,
    work: row.work,
    figure: `${formatFigure(row.figure)} ${row.unit}`,
    ratio: row.baseline ? `${(row.figure / row.baseline.figure).toFixed(2)} x ${row.baseline.name}` : '',
    target: row.target ? `${row.target}${row.met === undefined ? '' : row.met ? ' (met)' : ' (missed)'}` : '',
  }));
  const columns = ['scenario', 'measure', 'work', 'figure', 'ratio', 'target'] as const;
  const widths = columns.map((column) => Math.max(column.length, ...table.map((row) => row[column].length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(columns));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of table) console.log(line(columns.map((column) => row[column])));
}

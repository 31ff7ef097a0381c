import {
  CHART_HEIGHT,
  CHART_WIDTH,
  REPORT_TEXTS,
  type TMessageVolumePoint,
} from '@sms/contracts/reports/report';
import { type KeyboardEvent, type PointerEvent, useId, useState } from 'react';
import { formatBucket, formatCompact, labelIndexes, niceCeiling } from './chart-scale.ts';

const MARGIN = { top: 12, right: 12, bottom: 26, left: 40 };
const PLOT_WIDTH = CHART_WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = CHART_HEIGHT - MARGIN.top - MARGIN.bottom;
const Y_TICKS = 4;
const MAX_X_LABELS = 6;

const SERIES = [
  { key: 'sent', label: REPORT_TEXTS.sent, colour: '#4f46e5' },
  { key: 'received', label: REPORT_TEXTS.received, colour: '#10b981' },
] as const;

type TMessageVolumeChartProps = { points: TMessageVolumePoint[]; bucket: 'hour' | 'day' };

/**
 * Sent and received per hour or day, drawn 500 by 200 units (spec section 9) as plain SVG, so the
 * reports route carries no charting library. Pointer or arrow keys move a read-out along the points.
 */
export function MessageVolumeChart({ points, bucket }: TMessageVolumeChartProps) {
  const [active, setActive] = useState<number | null>(null);
  const titleId = useId();
  // A round step per gridline, so every tick label is a whole, round number.
  const tickStep = niceCeiling(
    Math.max(0, ...points.flatMap((point) => [point.sent, point.received])) / Y_TICKS,
  );
  const maxValue = tickStep * Y_TICKS;
  const x = (index: number) =>
    MARGIN.left + (points.length <= 1 ? PLOT_WIDTH / 2 : (index * PLOT_WIDTH) / (points.length - 1));
  const y = (value: number) => MARGIN.top + PLOT_HEIGHT - (value / maxValue) * PLOT_HEIGHT;
  const pathOf = (key: 'sent' | 'received') =>
    points
      .map((point, index) => `${index === 0 ? 'M' : 'L'}${x(index).toFixed(1)},${y(point[key]).toFixed(1)}`)
      .join(' ');

  const pickFromPointer = (event: PointerEvent<HTMLDivElement>) => {
    if (points.length === 0) return;
    const box = event.currentTarget.getBoundingClientRect();
    const unitsX = ((event.clientX - box.left) / box.width) * CHART_WIDTH;
    const step = points.length <= 1 ? PLOT_WIDTH : PLOT_WIDTH / (points.length - 1);
    setActive(Math.max(0, Math.min(points.length - 1, Math.round((unitsX - MARGIN.left) / step))));
  };

  const moveWithKeys = (event: KeyboardEvent<HTMLDivElement>) => {
    if (points.length === 0) return;
    const last = points.length - 1;
    const moves: Record<string, number> = {
      ArrowRight: Math.min(last, (active ?? -1) + 1),
      ArrowLeft: Math.max(0, (active ?? last + 1) - 1),
      Home: 0,
      End: last,
    };
    if (event.key === 'Escape') setActive(null);
    if (!(event.key in moves)) return;
    event.preventDefault();
    setActive(moves[event.key]);
  };

  const activePoint = active === null ? null : points[active];
  const yTicks = Array.from({ length: Y_TICKS + 1 }, (_, index) => tickStep * index);

  return (
    <section aria-labelledby={titleId} className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id={titleId} className="text-sm font-semibold text-slate-900">
          {REPORT_TEXTS.volumeTitle}
        </h2>
        <ul className="flex items-center gap-4 text-xs text-slate-600" aria-label="Legend">
          {SERIES.map((series) => (
            <li key={series.key} className="flex items-center gap-1.5">
              <span
                className="h-0.5 w-4 rounded"
                style={{ backgroundColor: series.colour }}
                aria-hidden="true"
              />
              {series.label}
            </li>
          ))}
        </ul>
      </div>

      <div className="relative mx-auto mt-4 max-w-[720px]">
        <div
          // A slider over the points: pointer or arrow keys move the read-out, which the value text repeats.
          role="slider"
          aria-label={`${REPORT_TEXTS.volumeTitle}: sent and received per ${bucket}`}
          aria-valuemin={0}
          aria-valuemax={Math.max(0, points.length - 1)}
          aria-valuenow={active ?? 0}
          aria-valuetext={
            activePoint
              ? `${formatBucket(activePoint.time, bucket, true)}: ${REPORT_TEXTS.sent} ${activePoint.sent}, ${REPORT_TEXTS.received} ${activePoint.received}`
              : `Use the arrow keys to read each ${bucket}`
          }
          tabIndex={0}
          onPointerMove={pickFromPointer}
          onPointerDown={pickFromPointer}
          onPointerLeave={() => setActive(null)}
          onKeyDown={moveWithKeys}
          onBlur={() => setActive(null)}
          className="rounded-md focus-visible:outline-2 focus-visible:outline-indigo-600"
          data-testid="message-volume-chart"
        >
          <svg
            viewBox={`0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`}
            width={CHART_WIDTH}
            height={CHART_HEIGHT}
            className="h-auto w-full touch-none select-none"
            aria-hidden="true"
          >
            <g fontSize={8} fill="#64748b">
              {yTicks.map((tick) => (
                <g key={tick}>
                  <line
                    x1={MARGIN.left}
                    x2={CHART_WIDTH - MARGIN.right}
                    y1={y(tick)}
                    y2={y(tick)}
                    stroke="#e2e8f0"
                  />
                  <text
                    x={MARGIN.left - 6}
                    y={y(tick)}
                    textAnchor="end"
                    dominantBaseline="middle"
                    data-testid="y-label"
                  >
                    {formatCompact(tick)}
                  </text>
                </g>
              ))}
              {labelIndexes(points.length, MAX_X_LABELS).map((index) => (
                <text
                  key={points[index].time}
                  x={x(index)}
                  y={CHART_HEIGHT - 8}
                  textAnchor={index === 0 ? 'start' : index === points.length - 1 ? 'end' : 'middle'}
                  data-testid="x-label"
                >
                  {formatBucket(points[index].time, bucket)}
                </text>
              ))}
            </g>
            {SERIES.map((series) => (
              <path
                key={series.key}
                d={pathOf(series.key)}
                fill="none"
                stroke={series.colour}
                strokeWidth={2}
                strokeLinejoin="round"
                strokeLinecap="round"
                data-series={series.key}
              />
            ))}
            {activePoint && active !== null ? (
              <g data-testid="chart-cursor">
                <line
                  x1={x(active)}
                  x2={x(active)}
                  y1={MARGIN.top}
                  y2={MARGIN.top + PLOT_HEIGHT}
                  stroke="#94a3b8"
                  strokeDasharray="3 3"
                />
                {SERIES.map((series) => (
                  <circle
                    key={series.key}
                    cx={x(active)}
                    cy={y(activePoint[series.key])}
                    r={3.5}
                    fill="#fff"
                    stroke={series.colour}
                    strokeWidth={2}
                  />
                ))}
              </g>
            ) : null}
          </svg>
        </div>

        <div
          role="status"
          aria-live="polite"
          className={`pointer-events-none absolute top-0 rounded-lg border border-slate-200 bg-white/95 px-3 py-2 text-xs shadow-md ${
            activePoint ? '' : 'sr-only'
          }`}
          style={
            activePoint && active !== null
              ? {
                  left: `${(x(active) / CHART_WIDTH) * 100}%`,
                  transform: `translateX(${x(active) > CHART_WIDTH / 2 ? '-105%' : '5%'})`,
                }
              : undefined
          }
          data-testid="chart-readout"
        >
          {activePoint ? (
            <>
              <p className="font-medium text-slate-900">{formatBucket(activePoint.time, bucket, true)}</p>
              {SERIES.map((series) => (
                <p key={series.key} className="mt-0.5 flex items-center gap-1.5 text-slate-700">
                  <span
                    className="size-2 rounded-full"
                    style={{ backgroundColor: series.colour }}
                    aria-hidden="true"
                  />
                  {series.label}:{' '}
                  <span className="font-semibold tabular-nums">
                    {activePoint[series.key].toLocaleString()}
                  </span>
                </p>
              ))}
            </>
          ) : null}
        </div>
      </div>
      <p className="mt-2 text-center text-xs text-slate-500">
        {bucket === 'hour' ? 'Hour (UTC)' : 'Day (UTC)'} · messages per {bucket}
      </p>
      {/* The same figures as a table, for screen readers: every point at once, not only the one read out. */}
      <table className="sr-only" data-testid="message-volume-table">
        <caption>{`${REPORT_TEXTS.volumeTitle} per ${bucket} (UTC)`}</caption>
        <thead>
          <tr>
            <th scope="col">{bucket === 'hour' ? 'Hour' : 'Day'}</th>
            {SERIES.map((series) => (
              <th key={series.key} scope="col">
                {series.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {points.map((point) => (
            <tr key={point.time}>
              <th scope="row">{formatBucket(point.time, bucket, true)}</th>
              {SERIES.map((series) => (
                <td key={series.key}>{point[series.key].toLocaleString()}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

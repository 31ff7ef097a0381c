import {
  REPORT_TIMEFRAME_LABELS,
  REPORT_TIMEFRAMES,
  type TReportTimeframe,
} from '@sms/contracts/reports/report';

type TTimeframeToggleProps = { value: TReportTimeframe; onChange: (value: TReportTimeframe) => void };

export function TimeframeToggle({ value, onChange }: TTimeframeToggleProps) {
  return (
    <fieldset className="inline-flex rounded-lg bg-slate-100 p-1">
      <legend className="sr-only">Timeframe</legend>
      {REPORT_TIMEFRAMES.map((timeframe) => (
        <button
          key={timeframe}
          type="button"
          aria-pressed={value === timeframe}
          onClick={() => onChange(timeframe)}
          className={`rounded-md px-3 py-1.5 text-sm font-medium transition-colors focus-visible:outline-2 focus-visible:outline-indigo-600 ${
            value === timeframe ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600 hover:text-slate-900'
          }`}
        >
          {REPORT_TIMEFRAME_LABELS[timeframe]}
        </button>
      ))}
    </fieldset>
  );
}

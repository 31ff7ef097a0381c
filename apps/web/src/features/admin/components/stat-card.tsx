type TStatCardProps = {
  label: string;
  value: number | undefined;
  tone?: 'indigo' | 'green' | 'amber' | 'slate';
};

const TONES = {
  indigo: 'bg-indigo-500',
  green: 'bg-green-500',
  amber: 'bg-amber-500',
  slate: 'bg-slate-400',
};

export function StatCard({ label, value, tone = 'slate' }: TStatCardProps) {
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
      <p className="text-sm font-medium text-slate-600">{label}</p>
      <p className="mt-2 flex items-center gap-2">
        <span className="text-2xl font-semibold text-slate-900">
          {value === undefined ? '—' : value.toLocaleString()}
        </span>
        <span className={`size-2 rounded-full ${TONES[tone]}`} aria-hidden="true" />
      </p>
    </div>
  );
}

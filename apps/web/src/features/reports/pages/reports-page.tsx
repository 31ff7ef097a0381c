import { effectiveRole } from '@sms/contracts/auth/roles';
import { DEFAULT_REPORT_TIMEFRAME, REPORT_TEXTS, type TReportTimeframe } from '@sms/contracts/reports/report';
import { useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { AlertIcon } from '../../../components/icons.tsx';
import { PageHeader } from '../../../components/page-header.tsx';
import { useAuth } from '../../auth/components/auth-provider.tsx';
import { useReport } from '../api/get-report.ts';
import { KpiCards } from '../components/kpi-cards.tsx';
import { MessageVolumeChart } from '../components/message-volume-chart.tsx';
import { TimeframeToggle } from '../components/timeframe-toggle.tsx';

const COMPARED_WITH: Record<TReportTimeframe, string> = {
  '24h': 'vs previous 24 hours',
  '7d': 'vs previous 7 days',
  '30d': 'vs previous 30 days',
};

export default function ReportsPage() {
  const { user } = useAuth();
  const [timeframe, setTimeframe] = useState<TReportTimeframe>(DEFAULT_REPORT_TIMEFRAME);
  const report = useReport(timeframe);
  const isViewer = effectiveRole(user?.role) === 'viewer';
  const companyName = user?.company?.name ?? 'your company';

  if (report.isError)
    return (
      <div role="alert" className="rounded-xl border border-red-200 bg-red-50 p-6 text-center">
        <AlertIcon className="mx-auto size-6 text-red-600" />
        <p className="mt-2 text-sm font-medium text-red-800">{REPORT_TEXTS.loadFailed}</p>
        <Button variant="secondary" className="mt-4" onClick={() => report.refetch()}>
          Try Again
        </Button>
      </div>
    );

  const data = report.data;
  const showingOther = data !== undefined && data.timeframe !== timeframe;

  return (
    <div className="space-y-6">
      <PageHeader
        title={REPORT_TEXTS.title}
        description={
          isViewer ? (
            <span className="flex flex-wrap items-center gap-2">
              {REPORT_TEXTS.viewerSubtitle(companyName)}
              <span
                className="rounded-full border border-indigo-200 bg-indigo-50 px-2 py-0.5 text-xs font-medium text-indigo-700"
                data-testid="company-badge"
              >
                {companyName}
              </span>
            </span>
          ) : (
            REPORT_TEXTS.subtitle
          )
        }
        actions={<TimeframeToggle value={timeframe} onChange={setTimeframe} />}
      />

      {report.isFetching ? (
        <p role="status" className="text-sm text-slate-500">
          {REPORT_TEXTS.loading}
        </p>
      ) : null}

      {data ? (
        <div
          className={`space-y-6 transition-opacity ${showingOther ? 'opacity-60' : ''}`}
          aria-busy={showingOther}
        >
          <KpiCards kpis={data.kpis} comparedWith={COMPARED_WITH[data.timeframe]} />
          <MessageVolumeChart points={data.messageVolume} bucket={data.bucket} />
        </div>
      ) : null}
    </div>
  );
}

import { computePointsTrend, computeTrend } from '@sms/contracts/common/trend';
import {
  REPORT_BUCKETS,
  type TKpiId,
  type TReport,
  type TReportKpi,
  type TReportTimeframe,
} from '@sms/contracts/reports/report';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import { type RequestContext, tenantOf } from '../../request-context.ts';
import { type ActivityTotals, findReportFigures } from './reports.repository.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The timeframe's first bucket and the same span before it. 24h: the current hour and the 23
 * before; 7d and 30d: today (UTC) and the days before. The current bucket is still filling.
 */
export function reportWindow(timeframe: TReportTimeframe, now: Date) {
  const { bucket, points } = REPORT_BUCKETS[timeframe];
  const size = bucket === 'hour' ? HOUR : DAY;
  const currentBucket = Math.floor(now.getTime() / size) * size;
  const from = new Date(currentBucket - (points - 1) * size);
  const previousFrom = new Date(from.getTime() - points * size);
  const to = new Date(currentBucket + size);
  return { bucket, points, from, previousFrom, to };
}

const rate = (totals: ActivityTotals) =>
  totals.sent === 0 ? null : Math.round((totals.delivered / totals.sent) * 1000) / 10;

function countKpi(
  id: TKpiId,
  label: string,
  current: number,
  previous: number,
  higherIsBetter = true,
): TReportKpi {
  return { id, label, value: current, unit: 'count', ...computeTrend(current, previous), higherIsBetter };
}

/** KPIs of the timeframe against the span before it, and the sent/received series, from the rollups. */
export async function getReport(
  deps: AppDeps,
  ctx: RequestContext,
  timeframe: TReportTimeframe,
  now = new Date(),
): Promise<TReport> {
  const companyId = tenantOf(ctx.actor);
  const window = reportWindow(timeframe, now);
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const { current, previous, volume } = await findReportFigures(trx, companyId, window);
    const currentRate = rate(current);
    const previousRate = rate(previous);
    return {
      timeframe,
      bucket: window.bucket,
      kpis: [
        countKpi('messages_sent', 'Messages Sent', current.sent, previous.sent),
        countKpi('messages_delivered', 'Delivered', current.delivered, previous.delivered),
        {
          id: 'delivery_rate',
          label: 'Delivery Rate',
          value: currentRate,
          unit: 'percent',
          ...computePointsTrend(currentRate, previousRate),
          higherIsBetter: true,
        },
        countKpi('messages_failed', 'Failed', current.failed, previous.failed, false),
        countKpi('messages_received', 'Messages Received', current.received, previous.received),
        countKpi('new_subscribers', 'New Subscribers', current.newSubscribers, previous.newSubscribers),
      ],
      messageVolume: volume.map((point) => ({
        time: point.time.toISOString(),
        sent: point.sent,
        received: point.received,
      })),
    };
  });
}

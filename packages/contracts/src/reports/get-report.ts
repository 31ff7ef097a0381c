import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { DEFAULT_REPORT_TIMEFRAME, REPORT_TEXTS, REPORT_TIMEFRAMES, ZReport } from './report.ts';

export const ZGetReportQuery = z.object({
  timeframe: z
    .enum(REPORT_TIMEFRAMES, { error: REPORT_TEXTS.timeframeInvalid })
    .default(DEFAULT_REPORT_TIMEFRAME),
});
export type TGetReportQuery = z.input<typeof ZGetReportQuery>;

export const ZGetReportResponse = successEnvelope(ZReport);

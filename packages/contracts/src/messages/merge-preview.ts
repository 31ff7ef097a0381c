import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import {
  ATTRIBUTE_MAX_COUNT,
  ATTRIBUTE_NAME_PATTERN,
  MERGE_FIELD_MESSAGES,
  ZFieldStats,
} from '../templates/merge-fields.ts';
import { ZRecipientPreviewQuery } from './manage-message.ts';

/** Real recipients whose texts the Create Message form previews. */
export const MERGE_PREVIEW_SAMPLE = 3;

/**
 * GET /messages/merge-fields?serviceIds=1,2&fields=first_name,language: what the recipients of
 * these services hold for the fields a text uses (each field's longest value...), read set-based
 * over all of them, and a few recipients with their attributes for a preview. The console works out
 * the longest text with longestExpansion (templates/merge-fields.ts), as the send does.
 */
export const ZMergePreviewQuery = ZRecipientPreviewQuery.extend({
  fields: z
    .string({ error: 'fields is required' })
    .transform((value) =>
      [
        ...new Set(
          value
            .split(',')
            .map((part) => part.trim())
            .filter(Boolean),
        ),
      ].sort(),
    )
    .pipe(
      z
        .array(
          z.string().regex(ATTRIBUTE_NAME_PATTERN, {
            error: (issue) => MERGE_FIELD_MESSAGES.nameInvalid(String(issue.input)),
          }),
        )
        .max(ATTRIBUTE_MAX_COUNT, `At most ${ATTRIBUTE_MAX_COUNT} fields`),
    ),
});
export type TMergePreviewQuery = { serviceIds: number[]; fields: string[] };

export const ZMergePreviewRecipient = z.object({
  id: z.number().int(),
  msisdn: z.string(),
  attributes: z.record(z.string(), z.string()),
});
export type TMergePreviewRecipient = z.infer<typeof ZMergePreviewRecipient>;

export const ZMergePreviewData = z.object({
  fields: z.array(ZFieldStats),
  samples: z.array(ZMergePreviewRecipient),
});
export type TMergePreviewData = z.infer<typeof ZMergePreviewData>;
export const ZMergePreviewResponse = successEnvelope(ZMergePreviewData);

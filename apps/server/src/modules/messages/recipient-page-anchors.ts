import type { AppDeps } from '../../app-deps.ts';
import type { Executor } from '../../db/database.ts';
import { keepRecent } from '../../lib/keep-recent.ts';
import { onePerApp } from '../../lib/one-per-app.ts';
import { createPageAnchors, type PageStart } from '../../lib/page-anchors.ts';
import { recipientAnchorIds } from './recipient-anchors.repository.ts';

type Send = { companyId: number; messageId: number; recipientsAt: Date };

/** Per app (lib/one-per-app.ts), as the subscriber list's anchors are. */
const sendsOf = onePerApp(() => ({
  /** Sends whose anchors this app keeps (the most recently read). */
  anchorsOfSend: createPageAnchors<string>(200),
  /** The send (company and fan-out time) each message's anchors were last read for. */
  sendOfMessage: new Map<number, Send>(),
}));

const keyOf = (send: Send) => `${send.companyId}:${send.messageId}:${send.recipientsAt.getTime()}`;

/**
 * Where a deep page of a send's recipients (in id order) starts (lib/page-anchors.ts): 80,000
 * keys walked for page 3,200 of a 100,000-recipient send with OFFSET, fewer than 100 from an
 * anchor. Only for a send whose fan-out has finished: its recipients are then fixed (ids come from
 * one sequence and never change; rows leave only with their message, whose lookup fails first),
 * so one version serves for good.
 */
export function recipientPageStart(deps: AppDeps, db: Executor, send: Send, offset: number) {
  const { anchorsOfSend, sendOfMessage } = sendsOf(deps);
  keepRecent(sendOfMessage, send.messageId, send, 200);
  return anchorsOfSend(keyOf(send), 'fixed', offset, () => recipientAnchorIds(db, send));
}

/**
 * Where a deep page of a message's recipients starts, when this process holds its send's anchors
 * (recipientPageStart read them), with the fan-out time they belong to: the caller's read checks
 * that the send is still that one, fanned out. null: no anchors here (a page from the top needs none).
 */
export function knownRecipientStart(
  deps: AppDeps,
  messageId: number,
  offset: number,
): (PageStart & { anchorId: number; recipientsAt: Date }) | null {
  const { anchorsOfSend, sendOfMessage } = sendsOf(deps);
  const send = sendOfMessage.get(messageId);
  if (!send) return null;
  const start = anchorsOfSend.knownStart(keyOf(send), 'fixed', offset);
  if (start?.anchorId == null) return null;
  return { anchorId: start.anchorId, skip: start.skip, recipientsAt: send.recipientsAt };
}

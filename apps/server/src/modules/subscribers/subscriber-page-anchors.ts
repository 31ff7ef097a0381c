import type { AppDeps } from '../../app-deps.ts';
import type { Executor } from '../../db/database.ts';
import { keepRecent } from '../../lib/keep-recent.ts';
import { onePerApp } from '../../lib/one-per-app.ts';
import { ANCHORS_FROM, createPageAnchors, type PageStart } from '../../lib/page-anchors.ts';
import { subscriberAnchorIds } from './subscriber-anchors.repository.ts';
import { type SubscriberPage, wholeListPage } from './subscribers.repository.ts';

type CompanyLists = {
  /** Companies whose anchors this process keeps (the most recently read). */
  anchorsOfCompany: ReturnType<typeof createPageAnchors<number>>;
  /** The state of each company's list its anchors were last read for (see listWholeSubscriberList). */
  lastStateOfCompany: Map<number, string>;
};

/**
 * Per app: another database's company of the same id (an app per database in one process) may
 * have a list in the same state, whose anchors would start its pages at the wrong rows.
 */
const listsOf = onePerApp(
  (): CompanyLists => ({ anchorsOfCompany: createPageAnchors<number>(100), lastStateOfCompany: new Map() }),
);

const readAnchors = (db: Executor, companyId: number) => () => subscriberAnchorIds(db, companyId);

const stateOf = (page: SubscriberPage) => `${page.total}:${page.newest}`;

/**
 * A page of a company's whole subscriber list (newest first) with its exact total, in one statement
 * (wholeListPage). A deep page starts from a remembered id
 * (lib/page-anchors.ts): 560,000 keys walked for page 5,600 of 100 with OFFSET, fewer than 100
 * from an anchor. The anchors belong to one state of the list, named by its exact total (the
 * per-status counters) and its newest id: ids come from one sequence and are never reused, so any
 * insert or delete changes one of the two. The call returns the state it read its page in; a page
 * started from anchors of another state is read again from anchors of that one. `deps` is the
 * app whose lists the anchors are; `db` reads the page (the request's transaction).
 */
export async function listWholeSubscriberList(
  deps: AppDeps,
  db: Executor,
  companyId: number,
  offset: number,
  limit: number,
): Promise<SubscriberPage> {
  if (offset < ANCHORS_FROM) return wholeListPage(db, companyId, offset, limit, null);
  const { anchorsOfCompany, lastStateOfCompany } = listsOf(deps);
  const startIn = (state: string): Promise<PageStart> =>
    anchorsOfCompany(companyId, state, offset, readAnchors(db, companyId));
  // The first deep page of a company in this process asks for the state alone (a page of none).
  const known =
    lastStateOfCompany.get(companyId) ??
    remember(lastStateOfCompany, companyId, await wholeListPage(db, companyId, 0, 0, null));
  const start = await startIn(known);
  const page = await wholeListPage(db, companyId, start.skip, limit, start.anchorId);
  if (stateOf(page) === known) return page;
  // The list changed since: its anchors are read again, and the page from them.
  const again = await startIn(remember(lastStateOfCompany, companyId, page));
  return wholeListPage(db, companyId, again.skip, limit, again.anchorId);
}

/** Notes the state a company's list was read in (the most recent companies only); returns it. */
function remember(lastStateOfCompany: Map<number, string>, companyId: number, page: SubscriberPage) {
  const state = stateOf(page);
  keepRecent(lastStateOfCompany, companyId, state, 100);
  return state;
}

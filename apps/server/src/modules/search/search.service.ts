import {
  SEARCH_MESSAGE_MIN_LENGTH,
  SEARCH_RESULTS_PER_KIND,
  searchKindsFor,
  type TGlobalSearchData,
  type TMessageHit,
} from '@sms/contracts/search/global-search';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import { type RequestContext, tenantOf } from '../../request-context.ts';
import { numberPrefixes, phoneSearchDigits } from '../subscribers/phone-number.ts';
import { findCompanyCountry } from '../subscribers/subscribers.repository.ts';
import * as repo from './search.repository.ts';

const SNIPPET_CONTEXT = 40;

/** The content cut to the part around the first match, so the match is what the user reads. */
export function snippetAround(content: string, text: string) {
  const at = content.toLowerCase().indexOf(text.toLowerCase());
  const start = Math.max(0, at - SNIPPET_CONTEXT);
  const end = Math.min(content.length, Math.max(at, 0) + text.length + SNIPPET_CONTEXT);
  return `${start > 0 ? '…' : ''}${content.slice(start, end)}${end < content.length ? '…' : ''}`;
}

/** Text that reads as a phone number (digits with the usual separators): only then are subscribers searched. */
function phoneDigitsOf(text: string) {
  if (!/^[\d\s+().-]+$/.test(text)) return null;
  const digits = phoneSearchDigits(text);
  return digits && digits.length >= 2 ? digits : null;
}

/**
 * What the user may open that matches the text, per kind: services (name, short code, keyword),
 * subscribers (any part of the number), messages (content), and for system admins companies (name)
 * and users (name or e-mail). Company users see their company's
 * only (the query filter, and row-level security behind it); system admins see every company's.
 */
export async function searchEverything(
  deps: AppDeps,
  ctx: RequestContext,
  q: string,
): Promise<TGlobalSearchData> {
  const companyId = tenantOf(ctx.actor);
  const kinds = searchKindsFor(ctx.actor.role);
  const limit = SEARCH_RESULTS_PER_KIND;
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const searchesMessages = kinds.includes('messages') && q.length >= SEARCH_MESSAGE_MIN_LENGTH;
    const first = await repo.searchFirstPass(
      trx,
      companyId,
      q,
      { services: kinds.includes('services'), messages: searchesMessages },
      limit,
    );
    const digits = kinds.includes('subscribers') ? phoneDigitsOf(q) : null;
    // The company's country only for text that reads as a phone number.
    const country = digits
      ? ((companyId === null ? null : await findCompanyCountry(trx, companyId)) ?? deps.config.defaultCountry)
      : deps.config.defaultCountry;
    const subscribers = digits
      ? await repo.searchSubscribers(trx, companyId, digits, numberPrefixes(q, country), limit)
      : [];
    const messages = searchesMessages ? await repo.searchMessages(trx, companyId, q, limit, first) : [];
    const services = first.services;
    // Companies and users: system admins only (the kinds follow the role, taken from the token).
    const companies = kinds.includes('companies') ? await repo.searchCompanies(trx, q, limit) : [];
    const users = kinds.includes('users') ? await repo.searchUsers(trx, q, limit) : [];
    return {
      q,
      kinds,
      services: services.map((row) => ({
        id: row.id,
        name: row.name,
        shortcode: row.shortcode,
        keyword: row.keyword,
        status: row.status as TGlobalSearchData['services'][number]['status'],
        companyName: row.company_name,
      })),
      subscribers: subscribers.map((row) => ({
        id: row.id,
        msisdn: row.msisdn,
        status: row.status,
        companyName: row.company_name,
      })),
      messages: messages.map((row) => ({
        id: row.id,
        snippet: snippetAround(row.content, q),
        direction: row.direction as TMessageHit['direction'],
        status: row.status as TMessageHit['status'],
        createdAt: row.created_at.toISOString(),
        companyName: row.company_name,
      })),
      companies: companies.map((row) => ({ id: row.id, name: row.name, status: row.status })),
      users: users.map((row) => ({
        id: row.id,
        name: row.name,
        email: row.email,
        role: row.role,
        companyName: row.company_name,
      })),
    };
  });
}

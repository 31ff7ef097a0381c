import { CALLBACK_MESSAGES, type TCallbackType } from '@sms/contracts/callbacks/callback-urls';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AppDeps } from '../../app-deps.ts';
import { companyScope, inTenantTransaction } from '../../db/tenant-scope.ts';
import { AppError } from '../../errors.ts';
import { hashesEqual, sha256 } from '../../lib/crypto.ts';
import { keepRecent } from '../../lib/keep-recent.ts';
import { onePerApp } from '../../lib/one-per-app.ts';
import { clientKeyOf, FixedWindows, limitAnswer } from '../../plugins/rate-limits.ts';
import { callbackCompanyStatus, isWellFormedCallbackUrl } from '../callbacks/callback-tokens.ts';

const SECOND = 1000;
const MINUTE = 60_000;
/** Companies (per callback type) whose window, or whose last verified token, is kept; past that the oldest go. */
const COMPANIES = 10_000;
/** Client addresses whose wrong-URL count is kept (the plugin's default for a route's own limit). */
const CLIENTS = 5_000;

type CallbackParams = { companyId?: string; token?: string };

/**
 * Who may reach a provider callback, before its body is read: the token is checked first, and
 * only then is the request counted, against its company (limits.callbacksPerSecond, a window of a
 * second: a provider posts delivery-report bursts for everyone from a few addresses) when the
 * token is right, against its client address (limits.callbackBadTokensPerMinute) when it is not.
 * So a caller who knows a company's id but not its token cannot use up that company's rate and
 * hold back its delivery reports and opt-outs; and an address past its count of wrong URLs is
 * refused before any lookup.
 *
 * A token found right is remembered per company and type (its SHA-256, compared in constant time),
 * so the busiest route checks it without a query; a request that came in on a remembered token and
 * is still answered 404 (the token was regenerated meanwhile, or the company deleted) forgets it.
 * The route itself checks the token again where it does its work (in the same transaction, or the
 * delivery-report batch's statement): what is remembered decides only which count a request goes
 * to, never whether it is accepted. In this process's memory, like every rate limit here.
 */
export class CallbackAdmission {
  private readonly deps: AppDeps;
  private readonly wrongUrls: FixedWindows;
  private readonly companies: Record<TCallbackType, FixedWindows>;
  private readonly verified = new Map<string, Buffer>();

  constructor(deps: AppDeps) {
    this.deps = deps;
    const limits = deps.config.rateLimits;
    this.wrongUrls = new FixedWindows(limits.callbackBadTokensPerMinute, MINUTE, CLIENTS);
    this.companies = {
      subscription: new FixedWindows(limits.callbacksPerSecond, SECOND, COMPANIES),
      dlr: new FixedWindows(limits.callbacksPerSecond, SECOND, COMPANIES),
    };
  }

  /** The route options that admit a callback of the type: an onRequest hook, and onResponse to forget a stale token. */
  routeHooks(type: TCallbackType) {
    return {
      onRequest: (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) =>
        this.admit(type, request, reply, done),
      onResponse: (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
        const remembered = request[ADMITTED_ON];
        if (remembered && reply.statusCode === 404 && this.verified.get(remembered.key) === remembered.hash)
          this.verified.delete(remembered.key);
        done();
      },
    };
  }

  private admit(
    type: TCallbackType,
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
  ) {
    const params = (request.params ?? {}) as CallbackParams;
    // A NUL a provider sends is dropped (request-guards.ts), here before the route's validation does it.
    const companyText = withoutNul(params.companyId ?? '');
    const companyId = /^\d{1,15}$/.test(companyText) ? Number(companyText) : 0;
    const token = withoutNul(params.token ?? '');
    const key = `${type}:${companyId}`;
    const presented = sha256(token);
    const remembered = this.verified.get(key);
    // Callback-style: the busiest route, with a remembered token, waits for nothing here.
    if (remembered && hashesEqual(remembered, presented)) {
      request[ADMITTED_ON] = { key, hash: remembered };
      return done(this.countForCompany(type, companyId, reply));
    }
    const client = clientKeyOf(request);
    const spent = this.wrongUrls.isSpent(client);
    if (spent) return done(limitAnswer(reply, this.wrongUrls.max, { ...spent, count: spent.count + 1 }));
    this.checkToken(type, companyId, token).then(
      (right) => {
        if (right) {
          this.remember(key, presented);
          return done(this.countForCompany(type, companyId, reply));
        }
        const refused = limitAnswer(reply, this.wrongUrls.max, this.wrongUrls.charge(client));
        done(refused ?? new AppError('not_found', CALLBACK_MESSAGES.invalidCallback));
      },
      (error: Error) => done(error),
    );
  }

  private countForCompany(type: TCallbackType, companyId: number, reply: FastifyReply) {
    const windows = this.companies[type];
    return limitAnswer(reply, windows.max, windows.charge(String(companyId)));
  }

  /** The shared rule (callbackCompanyStatus), in a transaction bound to the company the URL names. */
  private async checkToken(type: TCallbackType, companyId: number, token: string) {
    if (!isWellFormedCallbackUrl(companyId, token)) return false;
    const status = await inTenantTransaction(this.deps.db, companyScope(companyId), (trx) =>
      callbackCompanyStatus(trx, type, companyId, token),
    );
    return status !== null;
  }

  private remember(key: string, hash: Buffer) {
    keepRecent(this.verified, key, hash, COMPANIES * 2);
  }
}

const withoutNul = (text: string) => (text.includes('\u0000') ? text.replaceAll('\u0000', '') : text);

const ADMITTED_ON = Symbol('callback admitted on a remembered token');
declare module 'fastify' {
  interface FastifyRequest {
    [ADMITTED_ON]?: { key: string; hash: Buffer };
  }
}

/** The app's one admission, shared by both callback routes (one count of wrong URLs per address). */
export const callbackAdmissionOf = onePerApp((deps) => new CallbackAdmission(deps));

import { AUTH_MESSAGES, isSessionExpiredError } from '@sms/contracts/auth/login';
import { ZRefreshResponse } from '@sms/contracts/auth/refresh';
import { clearTokens, getAccessToken, getRefreshToken, setTokens } from './token-storage.ts';

const API_BASE_URL: string = import.meta.env.VITE_API_BASE_URL ?? '/api/v1';

type TQueryValue = string | number | boolean | null | undefined;

export type TRequestOptions = {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Sent as JSON; FormData is sent as it is (multipart, its files streamed by the browser). */
  body?: unknown;
  query?: Record<string, TQueryValue | readonly TQueryValue[]>;
  signal?: AbortSignal;
  /** false: send no bearer token (login, refresh). */
  auth?: boolean;
  /** false: a session-expiry answer is returned as is, without refreshing (logout). */
  refreshOnExpiry?: boolean;
  /** Extra request headers, such as an Idempotency-Key. */
  headers?: Record<string, string>;
  /** Bytes of the body sent so far (an upload's progress): the request then goes by XMLHttpRequest, which reports it. */
  onUploadProgress?: (loaded: number, total: number) => void;
};

/** fetch reports no upload progress; XMLHttpRequest does. Its answer is turned into a Response. */
function sendWithUploadProgress(
  url: string,
  init: { method: string; headers: Headers; body: FormData | string | undefined; signal?: AbortSignal },
  onProgress: (loaded: number, total: number) => void,
) {
  return new Promise<Response>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(init.method, url);
    init.headers.forEach((value, key) => {
      xhr.setRequestHeader(key, value);
    });
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    };
    xhr.onload = () =>
      resolve(
        new Response(xhr.status === 204 ? null : xhr.responseText, {
          status: xhr.status,
          headers: { 'Content-Type': xhr.getResponseHeader('Content-Type') ?? 'application/json' },
        }),
      );
    xhr.onerror = () => reject(new TypeError('Network request failed'));
    xhr.onabort = () => reject(new DOMException('Aborted', 'AbortError'));
    init.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(init.body ?? null);
  });
}

type TApiErrorInit = {
  status: number;
  message: string;
  error: string;
  details?: string[];
  /** true when message is the server's own text from the error envelope. */
  fromServer?: boolean;
  /** The response body's own `error` text, when it sent one (with or without a message). */
  responseError?: string;
};

export class ApiError extends Error {
  readonly status: number;
  readonly error: string;
  readonly details: string[] | undefined;
  readonly fromServer: boolean;
  readonly responseError: string | undefined;

  constructor({ status, message, error, details, fromServer = true, responseError }: TApiErrorInit) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.error = error;
    this.details = details;
    this.fromServer = fromServer;
    this.responseError = responseError;
  }
}

/** The server's own message for a failed call, if it sent one; callers fall back to their own text. */
export function getServerMessage(error: unknown): string | undefined {
  if (error instanceof ApiError && error.fromServer && error.message) return error.message;
  return undefined;
}

export function isSessionError(error: unknown): error is ApiError {
  return error instanceof ApiError && isSessionExpiredError(error.status, error.message);
}

let logoutHandler: (() => void) | null = null;
let refreshInFlight: Promise<string> | null = null;

/** Called when the session cannot be renewed. Returns a function that unregisters it. */
export function setLogoutHandler(handler: () => void) {
  logoutHandler = handler;
  return () => {
    if (logoutHandler === handler) logoutHandler = null;
  };
}

function buildUrl(path: string, query: TRequestOptions['query']) {
  const url = `${API_BASE_URL}${path}`;
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) {
      if (item !== undefined && item !== null) params.append(key, String(item));
    }
  }
  const search = params.toString();
  return search ? `${url}?${search}` : url;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function toApiError(status: number, payload: unknown) {
  const body = payload && typeof payload === 'object' ? (payload as Record<string, unknown>) : {};
  const responseError = typeof body.error === 'string' && body.error ? body.error : undefined;
  if (typeof body.message === 'string') {
    return new ApiError({
      status,
      message: body.message,
      error: responseError ?? 'http_error',
      details: Array.isArray(body.details) ? body.details.map(String) : undefined,
      responseError,
    });
  }
  return new ApiError({
    status,
    message: `Request failed with status ${status}`,
    error: responseError ?? 'http_error',
    fromServer: false,
    responseError,
  });
}

async function send(path: string, options: TRequestOptions, accessToken: string | null): Promise<unknown> {
  const headers = new Headers({ ...options.headers, Accept: 'application/json' });
  const isForm = options.body instanceof FormData;
  // A form's Content-Type (multipart, with its boundary) is the browser's to write.
  if (options.body !== undefined && !isForm) headers.set('Content-Type', 'application/json');
  if (accessToken) headers.set('Authorization', `Bearer ${accessToken}`);
  const body =
    options.body === undefined || isForm
      ? (options.body as FormData | undefined)
      : JSON.stringify(options.body);

  let response: Response;
  try {
    const init = { method: options.method ?? 'GET', headers, body, signal: options.signal };
    response = options.onUploadProgress
      ? await sendWithUploadProgress(buildUrl(path, options.query), init, options.onUploadProgress)
      : await fetch(buildUrl(path, options.query), init);
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new ApiError({
      status: 0,
      message: 'Unable to reach the server. Check your connection and try again.',
      error: 'network_error',
      fromServer: false,
    });
  }

  const payload = await readJson(response);
  const failed = !response.ok || (payload as { success?: unknown } | undefined)?.success === false;
  if (failed) throw toApiError(response.status, payload);
  if (payload && typeof payload === 'object' && 'data' in payload) return payload.data;
  return payload;
}

async function runRefresh() {
  const refreshToken = getRefreshToken();
  if (!refreshToken) {
    throw new ApiError({ status: 401, message: AUTH_MESSAGES.invalidRefreshToken, error: 'unauthorized' });
  }
  const data = await send('/auth/refresh', { method: 'POST', body: { refreshToken } }, null);
  const tokens = ZRefreshResponse.shape.data.parse(data);
  // Refresh tokens rotate: the one just sent is spent, so the new pair must replace it before anything else runs.
  setTokens(tokens);
  return tokens.accessToken;
}

function refreshAccessToken(expiredToken: string) {
  const current = getAccessToken();
  // Another request already renewed the session while this one was in flight.
  if (current && current !== expiredToken && !refreshInFlight) return Promise.resolve(current);
  refreshInFlight ??= runRefresh().finally(() => {
    refreshInFlight = null;
  });
  return refreshInFlight;
}

function endSession() {
  clearTokens();
  if (logoutHandler) {
    logoutHandler();
    return;
  }
  window.location.assign('/login');
}

/**
 * Calls the API, unwraps `{ success, data }` and throws ApiError on failure. A session-expiry answer is
 * retried once after a token refresh shared by all concurrent callers; if that cannot help, the session ends.
 */
export async function apiRequest<T>(path: string, options: TRequestOptions = {}): Promise<T> {
  const accessToken = options.auth === false ? null : getAccessToken();
  try {
    return (await send(path, options, accessToken)) as T;
  } catch (error) {
    if (!accessToken || options.refreshOnExpiry === false || !isSessionError(error)) throw error;
  }

  let renewedToken: string;
  try {
    renewedToken = await refreshAccessToken(accessToken);
  } catch (refreshError) {
    endSession();
    throw refreshError instanceof ApiError
      ? refreshError
      : new ApiError({ status: 401, message: AUTH_MESSAGES.invalidRefreshToken, error: 'unauthorized' });
  }

  try {
    return (await send(path, options, renewedToken)) as T;
  } catch (error) {
    if (isSessionError(error)) endSession();
    throw error;
  }
}

export const api = {
  get: <T>(path: string, options?: Omit<TRequestOptions, 'method' | 'body'>) =>
    apiRequest<T>(path, { ...options, method: 'GET' }),
  post: <T>(path: string, body?: unknown, options?: Omit<TRequestOptions, 'method' | 'body'>) =>
    apiRequest<T>(path, { ...options, method: 'POST', body }),
  put: <T>(path: string, body?: unknown, options?: Omit<TRequestOptions, 'method' | 'body'>) =>
    apiRequest<T>(path, { ...options, method: 'PUT', body }),
  patch: <T>(path: string, body?: unknown, options?: Omit<TRequestOptions, 'method' | 'body'>) =>
    apiRequest<T>(path, { ...options, method: 'PATCH', body }),
  delete: <T>(path: string, options?: Omit<TRequestOptions, 'method'>) =>
    apiRequest<T>(path, { ...options, method: 'DELETE' }),
};

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/**
 * Answers to requests past a limit: too many (429, with Retry-After), too large (413, 414, 431),
 * missing their body or unreadable (400, 408), or arriving while every database connection stays
 * busy or the database cannot be reached (503, with Retry-After).
 */
export const REQUEST_LIMIT_MESSAGES = {
  tooManyRequests: (seconds: number) =>
    `Too many requests. Please wait ${seconds} second${seconds === 1 ? '' : 's'} and try again.`,
  tooLarge: (maxBytes: number) => `The request is too large: at most ${megabytes(maxBytes)} may be sent`,
  tooManyParts: 'The upload has too many parts: send the CSV file alone',
  bodyRequired: 'This request needs a JSON body',
  /** Answered before routing (Fastify, or Node's HTTP parser): the request never reached a route. */
  unreadableUrl: 'The request URL could not be read: it holds an invalid percent-encoding',
  urlPartTooLong: (maxCharacters: number) =>
    `A part of the request URL is too long: at most ${maxCharacters} characters may be sent`,
  headersTooLarge: (maxBytes: number) =>
    `The request URL and headers are too large: at most ${Math.round(maxBytes / 1024)} KB may be sent`,
  unreadableRequest: 'The request could not be read as HTTP',
  requestTimeout: 'The request did not arrive in time',
  serverBusy: (seconds: number) =>
    `The server is busy right now. Please wait ${seconds} second${seconds === 1 ? '' : 's'} and try again.`,
  /** The database cannot be reached, or the connection was lost under the request (503, with Retry-After). */
  serviceUnavailable: 'The service is temporarily unavailable. Please try again shortly.',
} as const;

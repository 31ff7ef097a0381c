const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/**
 * Answers to requests past a limit: too many (429, with Retry-After), too large (413), missing
 * their body (400), or arriving while every database connection stays busy (503, with Retry-After).
 */
export const REQUEST_LIMIT_MESSAGES = {
  tooManyRequests: (seconds: number) =>
    `Too many requests. Please wait ${seconds} second${seconds === 1 ? '' : 's'} and try again.`,
  tooLarge: (maxBytes: number) => `The request is too large: at most ${megabytes(maxBytes)} may be sent`,
  tooManyParts: 'The upload has too many parts: send the CSV file alone',
  bodyRequired: 'This request needs a JSON body',
  serverBusy: (seconds: number) =>
    `The server is busy right now. Please wait ${seconds} second${seconds === 1 ? '' : 's'} and try again.`,
} as const;
